// The search oracle (@social/conformance) on PostgreSQL: one database on a server of this file's own, its
// world replaced for every check and analyzed, and a store of its own for each, whose searches decide
// what the index is asked from that world's lexeme frequencies (src/search/frequencies.ts). Then what
// only PostgreSQL has: the plans those frequencies choose, on worlds whose answers the oracle checks too.
import { afterAll, beforeAll, expect, test } from "bun:test";
import {
  checkSearchQueries,
  type LoadSearchWorld,
  SEARCH_ORACLE_LIMITS,
  SEARCH_WORLD_START,
  searchConformance,
  type TweetSeed,
  textSeed,
} from "@social/conformance";
import { parseQuery } from "@social/core";
import { WORLD_TABLES } from "@social/store-common";
import type { SQL } from "bun";
import { openPostgres } from "../src/database.ts";
import { type Condition, compileSearch } from "../src/search/compile.ts";
import { LexemeFrequencies } from "../src/search/frequencies.ts";
import { withinHours } from "../src/search/hours.ts";
import { langLexeme, lexemesOf } from "../src/search/lexemes.ts";
import { PostgresStore } from "../src/store/postgres-store.ts";
import { WorldWriter } from "../src/world/writer.ts";
import { type PostgresServer, startPostgres } from "../testing/pg-server.ts";

let server: PostgresServer;
let sql: SQL;
beforeAll(async () => {
  server = await startPostgres();
  sql = await openPostgres(await server.createDatabase("search"));
});
afterAll(async () => {
  await sql?.close();
  server?.stop();
});

const load: LoadSearchWorld = async ({ meta, records }) => {
  await sql.begin(async (tx) => {
    await tx.unsafe(`TRUNCATE ${WORLD_TABLES.join(", ")}`);
    const writer = new WorldWriter(tx);
    writer.begin(meta);
    writer.write(records);
    writer.end();
    await writer.finished();
  });
  await sql`ANALYZE tweets`;
  const [world] = await sql<{ ids_follow_time: boolean }[]>`SELECT ids_follow_time FROM world_meta`;
  // A walk of two tweets makes most pages gather the rest through the index.
  const store = new PostgresStore(sql, { newestWalk: 2, search: SEARCH_ORACLE_LIMITS });
  return { store, idsFollowTime: world?.ids_follow_time === true, close: async () => {} };
};

searchConformance("PostgreSQL", load);

/**
 * Checks `texts` over 1,000 tweets, one every 500 s (139 hours): `fight place` in the first 20, `bun cafe`
 * or `ai text` in the others, each with `traits`. Returns the lexeme frequencies of that world, which
 * stays loaded: its statistics are the ones the searches went by.
 */
async function checkedWithStatistics(traits: (index: number) => Partial<TweetSeed>, texts: readonly string[]) {
  const seeds = Array.from({ length: 1000 }, (_, index) => ({
    ...textSeed(index < 20 ? "fight place" : index % 3 === 0 ? "bun cafe" : "ai text", index),
    createdMs: SEARCH_WORLD_START + index * 500_000,
    ...traits(index),
  }));
  await checkSearchQueries(
    load,
    seeds,
    texts.map((text) => parseQuery(text)),
    7,
    true,
  );
  return new LexemeFrequencies(sql).current();
}

test("PostgreSQL asks the index for a rare negated word and leaves a common lang: to the rows, with the same answers", async () => {
  // 1,000 tweets over 139 hours: `fight` in 20, each with `place`, which no other holds (2%: rare);
  // three in five in English (common).
  const frequencyOf = await checkedWithStatistics(
    (index) => ({ lang: index % 5 < 3 ? "en" : "fr" }),
    ["fight -place", "lang:en fight", "lang:en -place", "ai -place lang:en", "lang:en lang:fr", "-place"],
  );
  const [english, place] = [lexemesOf(langLexeme("en"))[0] as string, "place"];
  expect(frequencyOf(place)).toBeLessThan(0.03);
  expect(frequencyOf(english)).toBeGreaterThan(0.5);
  const asked = (text: string) => {
    const match = compileSearch(parseQuery(text), frequencyOf)?.condition;
    if (match?.kind !== "match") throw new Error(`${text} compiles to ${JSON.stringify(match)}`);
    return match.index ?? match.query;
  };
  expect(asked("fight -place")).toContain("!('place')");
  expect(asked("lang:en fight")).not.toContain(english);
  expect(asked("lang:en lang:fr")).toContain(english);
});

test("PostgreSQL reads an OR of a word and counts by hours in each arm beside a common lang:, with the same answers", async () => {
  // 1,000 tweets over 139 hours, three in five in English (common), one in ten in French (rarer); `fight`
  // in 20, 30 likes on every 37th tweet and 12 retweets on every 41st.
  const frequencyOf = await checkedWithStatistics(
    (index) => ({
      lang: index % 10 < 6 ? "en" : index % 10 < 7 ? "fr" : "ja",
      likes: index % 37 === 0 ? 30 : 0,
      retweets: index % 41 === 0 ? 12 : 0,
    }),
    [
      "(fight OR min_faves:20) lang:en",
      "(fight OR min_faves:20 OR min_retweets:10) lang:en",
      "lang:en (min_faves:20 OR (fight -cafe))",
      "(fight OR min_faves:20) lang:fr",
    ],
  );
  const spans = "'time1h:10'";
  const read = (text: string) => {
    const condition = compileSearch(parseQuery(text), frequencyOf)?.condition as Condition;
    return JSON.stringify(withinHours(condition, 10, 10));
  };
  // Beside `lang:en` the spans go in every arm (the first with @@, the others with its synonym);
  // beside the rarer `lang:fr` they stay beside it.
  const inArms = JSON.parse(read("(fight OR min_faves:20 OR min_retweets:10) lang:en"));
  const or = inArms.children.find((child: Condition) => child.kind === "or");
  expect(or.children.map((arm: { children: Condition[] }) => arm.children.at(-1))).toEqual([
    { kind: "match", query: spans, narrow: true },
    { kind: "match", query: spans, narrow: true, synonym: true },
    { kind: "match", query: spans, narrow: true, synonym: true },
  ]);
  expect(JSON.parse(read("(fight OR min_faves:20) lang:fr")).children.at(-1)).toEqual({
    kind: "match",
    query: spans,
    narrow: true,
  });
});
