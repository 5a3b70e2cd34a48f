// The search oracle: an adapter's compiled search must select exactly what the core's reference
// matcher accepts, for any query and any tweets: random small worlds, random ASTs and random query
// strings, every page of both sort orders, in the matcher's order (newest first) for recency, and the
// same matches counted per bucket of a time window. Relevancy orders by each database's own text score
// (bm25 on SQLite, ts_rank on PostgreSQL), so there the pages must hold each match exactly once.
import { describe, expect, test } from "bun:test";
import type { WorldRecord, WorldSink } from "@social/core";
import {
  bucketCount,
  type CountWindow,
  countOrigin,
  matches,
  type PageRequest,
  parseQuery,
  type SearchLimits,
  type SearchNode,
  type SearchSortOrder,
  type Store,
  searchDocument,
  type Tweet,
} from "@social/core";
import fc from "fast-check";
import {
  DAY_MS,
  FIRST_DAY,
  localId,
  newestFirst,
  parsed,
  queryText,
  SMALL_IDS,
  searchNode,
  shifted,
  type TweetSeed,
  textSeed,
  tweet,
  tweetSeed,
  user,
  WORLD_META,
  type WorldIds,
  worldRecords,
  X_SIZED_IDS,
} from "./search-world.ts";

/** A world for one check: its meta and records, for the adapter's own world writer. */
export interface SearchWorldRecords {
  meta: Parameters<WorldSink["begin"]>[0];
  records: readonly WorldRecord[];
}

/** A store holding just one world's records, and whether its writer found ids following time. */
export interface SearchWorld {
  store: Store;
  idsFollowTime: boolean;
  close(): Promise<void>;
}

/** Loads `world` into a store of the adapter's, replacing any world a load before it left. */
export type LoadSearchWorld = (world: SearchWorldRecords) => Promise<SearchWorld>;

/**
 * The limits an adapter's store is given for the suite: it checks answers, not the budget (each adapter's
 * search-budget tests do), and on a machine loaded by the whole suite even a search of a few dozen
 * tweets can outlast the default budget and be refused.
 */
export const SEARCH_ORACLE_LIMITS = { budgetMs: 10_000, countBudgetMs: 10_000 } satisfies Partial<SearchLimits>;

function loadTweets(load: LoadSearchWorld, tweets: readonly Tweet[], ids = SMALL_IDS): Promise<SearchWorld> {
  return load({ meta: { ...WORLD_META, tweets: tweets.length }, records: worldRecords(tweets, ids) });
}

/**
 * Five tweets of three words that hold `ai`, twice in the two oldest and once in the others (the same
 * length, so that bm25, which weighs it, scores alike what ts_rank does), then ten without it: bm25
 * scores a word most tweets hold at about 0.
 */
function scoredTweets(): Tweet[] {
  const texts = ["ai ai bun", "cafe ai ai", "ai bun cafe", "bun ai text", "cafe bun ai"];
  texts.push(...Array.from({ length: 10 }, () => "bun cafe text"));
  return texts.map((text, index) => tweet({ ...textSeed(text, index), author: 0 }, index));
}

async function allPages(store: Store, query: SearchNode, sortOrder: SearchSortOrder, size: number) {
  const ids: string[] = [];
  let page: PageRequest = { size };
  for (let pages = 0; pages < 1000; pages++) {
    const result = await store.searchTweets(query, sortOrder, page);
    ids.push(...result.items.map((item) => item.id));
    if (result.next === undefined) return ids;
    expect(result.items.length).toBe(size);
    page = { size, after: result.next };
  }
  throw new Error("pagination does not end");
}

function documentOf(t: Tweet, ids: WorldIds) {
  const userOf = (id: string) => user(localId(ids, id) - 100, ids);
  const author = userOf(t.author_id);
  const repliedTo = t.in_reply_to_user_id === undefined ? undefined : userOf(t.in_reply_to_user_id);
  return searchDocument(t, {
    author,
    ...(repliedTo === undefined ? {} : { replyToUsername: repliedTo.username }),
  });
}

function expected(tweets: readonly Tweet[], query: SearchNode, ids: WorldIds): string[] {
  return tweets
    .filter((t) => matches(query, documentOf(t, ids)))
    .map((t) => t.id)
    .sort(newestFirst);
}

/**
 * A count window that starts and ends inside the world's days and inside its buckets, which are not
 * whole hours: tweets fall before, inside and after it, and the query's own since: / until: cut it.
 */
const COUNT_WINDOW: CountWindow = {
  startMs: FIRST_DAY + 7 * 3_600_000 + 17 * 60_000,
  endMs: FIRST_DAY + 5 * DAY_MS + 3 * 3_600_000 + 5 * 60_000,
  sizeMs: 11 * 3_600_000,
};

function expectedCounts(tweets: readonly Tweet[], query: SearchNode, ids: WorldIds): number[] {
  const { startMs, endMs, sizeMs } = COUNT_WINDOW;
  const origin = countOrigin(COUNT_WINDOW);
  const counts = new Array<number>(bucketCount(COUNT_WINDOW)).fill(0);
  for (const t of tweets) {
    const created = Date.parse(t.created_at);
    if (created >= startMs && created < endMs && matches(query, documentOf(t, ids))) {
      const bucket = Math.floor((created - origin) / sizeMs);
      counts[bucket] = (counts[bucket] ?? 0) + 1;
    }
  }
  return counts;
}

/**
 * Loads the tweets of `seeds` and checks every query on them against the matcher: every page of both
 * sort orders in pages of `size`, and the counts. With `timeOrdered`, ids increase with creation time,
 * as in generated worlds, and the store may turn since: / until: into id bounds; otherwise they must
 * stay plain filters. The queries' ids are local ones, moved into the world of `ids`.
 */
export async function checkSearchQueries(
  load: LoadSearchWorld,
  seeds: readonly TweetSeed[],
  localQueries: readonly SearchNode[],
  size: number,
  timeOrdered: boolean,
  ids = SMALL_IDS,
): Promise<void> {
  const ordered = timeOrdered ? [...seeds].sort((a, b) => a.createdMs - b.createdMs) : seeds;
  const tweets = ordered.map((seed, index) => tweet(seed, index, ids));
  const world = await loadTweets(load, tweets, ids);
  try {
    if (timeOrdered) expect(world.idsFollowTime).toBe(true);
    for (const query of localQueries.map((local) => shifted(local, ids))) {
      const truth = expected(tweets, query, ids);
      const context = JSON.stringify(query);
      expect(await allPages(world.store, query, "recency", size), context).toEqual(truth);
      const relevancy = await allPages(world.store, query, "relevancy", size);
      expect(new Set(relevancy).size, context).toBe(relevancy.length);
      expect([...relevancy].sort(newestFirst), context).toEqual(truth);
      expect(await world.store.countTweets(query, COUNT_WINDOW), context).toEqual(expectedCounts(tweets, query, ids));
    }
  } finally {
    await world.close();
  }
}

/** How many random worlds each property is checked on. */
export interface SearchRuns {
  asts: number;
  strings: number;
  xSizedIds: number;
}

const DEFAULT_RUNS: SearchRuns = { asts: 150, strings: 100, xSizedIds: 100 };

/** The matcher as the oracle of `name`'s searchTweets and countTweets, each world loaded by `load`. */
export function searchConformance(name: string, load: LoadSearchWorld, runs: SearchRuns = DEFAULT_RUNS): void {
  describe(`searchTweets on ${name} agrees with the reference matcher`, () => {
    test.each([
      { ids: SMALL_IDS, numRuns: runs.asts, what: "random tweets" },
      { ids: X_SIZED_IDS, numRuns: runs.xSizedIds, what: "tweets and users with X-sized ids, past 2^53" },
    ])(
      "random ASTs over $what, every page of both sort orders",
      async ({ ids, numRuns }) => {
        await fc.assert(
          fc.asyncProperty(
            fc.array(tweetSeed, { maxLength: 30 }),
            fc.array(searchNode, { minLength: 1, maxLength: 8 }),
            fc.integer({ min: 1, max: 4 }),
            fc.boolean(),
            (seeds, queries, size, timeOrdered) => checkSearchQueries(load, seeds, queries, size, timeOrdered, ids),
          ),
          { numRuns },
        );
      },
      120_000,
    );

    test("random query strings through parseQuery", async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(tweetSeed, { maxLength: 30 }),
          fc.array(queryText, { minLength: 1, maxLength: 8 }),
          fc.integer({ min: 1, max: 4 }),
          fc.boolean(),
          async (seeds, texts, size, timeOrdered) => {
            const queries = texts.map(parsed).filter((query) => query !== undefined);
            await checkSearchQueries(load, seeds, queries, size, timeOrdered);
          },
        ),
        { numRuns: runs.strings },
      );
    }, 120_000);

    test("FTS5, tsquery and SQL syntax in values is literal text", async () => {
      const hostile = [
        'a"b',
        '"',
        '""',
        "*",
        "ai*",
        "NEAR(ai bun)",
        "NEAR",
        "text:ai",
        "author : bob",
        "{text}:ai",
        "^ai",
        "(",
        ")",
        "\u0000",
        "ai\u0000bun",
        "' OR 1=1 --",
        "'); DROP TABLE tweets; --",
        "ai OR bun",
        "ai & bun",
        "!ai",
        "ai <-> bun",
        "ai:*",
        "'ai'",
        "a\\b",
        "ai AND bun",
        "NOT ai",
        "-ai",
        "+ai",
      ];
      const seeds: TweetSeed[] = [
        'a"b NEAR(ai bun) ^ai text:ai',
        "ai bun OR NOT ' OR 1=1 -- a\\b & !x <-> y",
        "plain ai bun",
        "{text}:ai author : bob",
        "nothing here",
      ].map(textSeed);
      const queries = hostile.flatMap((value): SearchNode[] => [
        { kind: "term", value },
        { kind: "phrase", value },
        { kind: "hashtag", value },
        { kind: "not", child: { kind: "phrase", value } },
        { kind: "from", username: value },
        { kind: "lang", code: value },
      ]);
      await checkSearchQueries(load, seeds, queries, 2, false);
    });

    test("hostile values find the tweets holding their words, and run nothing", async () => {
      const texts = ['say "NEAR(ai bun)" now', "x' OR 1=1 -- y", "col:ai ^start (group)", "a\\b & !c"] as const;
      const tweets = texts.map((text, index) =>
        tweet({ ...textSeed(text, index), author: 0, createdMs: FIRST_DAY }, index),
      );
      const world = await loadTweets(load, tweets);
      try {
        const { store } = world;
        const found = async (query: SearchNode) =>
          (await store.searchTweets(query, "recency", { size: 10 })).items.map((item) => item.text);
        expect(await found({ kind: "phrase", value: "NEAR(ai bun)" })).toEqual([texts[0]]);
        expect(await found({ kind: "term", value: '"NEAR(ai bun)"' })).toEqual([texts[0]]);
        expect(await found({ kind: "phrase", value: "' OR 1=1 --" })).toEqual([texts[1]]);
        expect(await found({ kind: "phrase", value: "col:ai ^start (group" })).toEqual([texts[2]]);
        expect(await found({ kind: "phrase", value: "a\u0000b" })).toEqual([texts[3]]);
        expect(await found({ kind: "phrase", value: "a\\b & !c" })).toEqual([texts[3]]);
        expect(await found({ kind: "term", value: "*" })).toEqual([]);
        expect(
          await found({ kind: "not", child: { kind: "phrase", value: "'); DROP TABLE tweets; --" } }),
        ).toHaveLength(4);
        expect((await store.tweetsByIds(tweets.map((t) => t.id))).length).toBe(4);
      } finally {
        await world.close();
      }
    });

    test("relevancy ranks by the words alone, whatever else the query asks", async () => {
      // The tweets that hold the word twice are the oldest, so that newest first would put them last.
      const tweets = scoredTweets();
      const twice = tweets.slice(0, 2).map((t) => t.id);
      const world = await loadTweets(load, tweets);
      try {
        for (const text of ["ai", "lang:en ai", "from:Alice ai", "ai -filter:links", "(ai OR nothing) lang:en"]) {
          const { items } = await world.store.searchTweets(parseQuery(text), "relevancy", { size: 5 });
          expect(
            items
              .map((item) => item.id)
              .slice(0, 2)
              .sort(newestFirst),
            text,
          ).toEqual(twice.sort(newestFirst));
          expect(items, text).toHaveLength(5);
        }
      } finally {
        await world.close();
      }
    });

    test("relevancy puts equal scores newest first, on every page", async () => {
      // The two with `ai` twice tie, as do the three with it once.
      const tweets = scoredTweets();
      const ranked = [1, 0, 4, 3, 2].map((index) => (tweets[index] as Tweet).id);
      const world = await loadTweets(load, tweets);
      try {
        for (const text of ["ai", "lang:en ai -filter:links"]) {
          for (const size of [5, 2]) {
            expect(await allPages(world.store, parseQuery(text), "relevancy", size), `${text}, ${size}`).toEqual(
              ranked,
            );
          }
        }
      } finally {
        await world.close();
      }
    });
  });
}
