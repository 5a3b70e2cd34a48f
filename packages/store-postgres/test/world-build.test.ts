// Building the world into PostgreSQL: the rows it derives from the default world's records (committed as
// a digest per table), the meta row, rebuilds that replace everything, and a failed build that leaves
// the world it found.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { WorldRecord } from "@social/core";
import { generateWorld, type WorldOptions } from "@social/fixtures";
import { WORLD_TABLES } from "@social/store-common";
import { snapshotDifference } from "@social/testing";
import type { SQL } from "bun";
import { openPostgres } from "../src/database.ts";
import { migrate } from "../src/migrate.ts";
import { buildWorld, hasWorld, readWorldMeta } from "../src/world/build.ts";
import { worldMigrations } from "../src/world/schema.ts";
import type { WorldCounts } from "../src/world/writer.ts";
import { acquireDefaultWorld, type DefaultWorld, releaseDefaultWorld } from "./default-world.ts";

/** Each world table's key, the order its rows are listed in. */
const KEYS: Record<(typeof WORLD_TABLES)[number], string> = {
  world_meta: "id",
  users: "id",
  tweets: "id",
  tweet_mentions: "tweet_id, user_id",
  tweet_mention_names: 'tweet_id, username_key COLLATE "C"',
  follows: "follower_id, created_ms, followee_id",
  lists: "id",
  list_members: "list_id, created_ms, user_id",
  list_subscribers: "list_id, created_ms, user_id",
  communities: "id",
  community_members: "community_id, created_ms, user_id",
  community_tweets: "community_id, tweet_id",
  trends: 'woeid COLLATE "C", rank',
  articles: "tweet_id",
  import_positions: 'path COLLATE "C"',
  monitor_arrivals: "seq",
};

/** A table's columns, how many rows it holds and a digest of them all in key order. */
async function tableDigest(sql: SQL, table: (typeof WORLD_TABLES)[number]) {
  const rows = await sql.unsafe<Record<string, unknown>[]>(`SELECT * FROM ${table} ORDER BY ${KEYS[table]}`);
  const hasher = new Bun.CryptoHasher("sha256");
  for (const row of rows) hasher.update(`${JSON.stringify(Object.values(row))}\n`);
  return { columns: Object.keys(rows[0] ?? {}), rows: rows.length, sha256: hasher.digest("hex").slice(0, 20) };
}

function generatedCounts(options: WorldOptions): WorldCounts {
  const counts: Partial<WorldCounts> = {};
  generateWorld(options, {
    begin() {},
    write(batch: readonly WorldRecord[]) {
      for (const record of batch) counts[record.kind] = (counts[record.kind] ?? 0) + 1;
    },
    end() {},
  });
  return counts as WorldCounts;
}

async function tableCounts(sql: SQL): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of WORLD_TABLES) {
    const [row] = await sql.unsafe<{ count: number }[]>(`SELECT count(*)::int AS count FROM ${table}`);
    counts[table] = row?.count ?? -1;
  }
  return counts;
}

async function indexNames(sql: SQL): Promise<string[]> {
  const rows = await sql<{ name: string }[]>`
    SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() ORDER BY 1`;
  return rows.map((row) => row.name);
}

let w: DefaultWorld;
beforeAll(async () => {
  w = await acquireDefaultWorld();
}, 60_000);
afterAll(releaseDefaultWorld);

describe("the default world", () => {
  // A change to what a build derives shows in review as a diff of the committed digests; `npm run
  // snapshots` accepts it.
  test("every table holds the committed rows: its columns, its row count and a digest of its rows", async () => {
    const tables: Record<string, unknown> = {};
    for (const table of WORLD_TABLES) tables[table] = await tableDigest(w.sql, table);
    const snapshot = join(import.meta.dir, "snapshots/world-tables.json");
    expect(snapshotDifference(snapshot, `${JSON.stringify(tables, null, 2)}\n`)).toBeUndefined();
  });
});

describe("building and rebuilding", () => {
  const small = { seed: "pg-small", tweets: 1_000, clock: "2026-11-20T12:00:00.000Z" };
  const other = { seed: "pg-other", tweets: 1_500, clock: "2026-10-01T00:00:00.000Z" };
  let sql: SQL;

  beforeAll(async () => {
    sql = await openPostgres(await w.server.createDatabase("rebuilds"));
  });
  afterAll(() => sql.close());

  test("an empty database has no world", async () => {
    expect(await hasWorld(sql)).toBe(false);
    expect(await readWorldMeta(sql)).toBeUndefined();
  });

  test("a build writes the meta row and every record, and reports its tweets as they land", async () => {
    const progress: number[] = [];
    const indexesBefore = await indexNames(sql);
    const meta = await buildWorld(sql, small, ({ tweets, totalTweets }) => {
      expect(totalTweets).toBe(small.tweets);
      progress.push(tweets);
    });
    expect(meta).toEqual({ seed: small.seed, clock: small.clock, counts: generatedCounts(small) });
    expect(await readWorldMeta(sql)).toEqual(meta);
    expect(await hasWorld(sql)).toBe(true);
    expect(progress.at(-1)).toBe(small.tweets);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(await indexNames(sql)).toEqual(indexesBefore);
  });

  test("a rebuild replaces the whole world", async () => {
    const meta = await buildWorld(sql, other);
    const { counts } = meta;
    expect(counts).toEqual(generatedCounts(other));
    const tables = await tableCounts(sql);
    expect(tables).toMatchObject({
      world_meta: 1,
      users: counts.user,
      tweets: counts.tweet,
      follows: counts.follow,
      lists: counts.list,
      list_members: counts.list_member,
      list_subscribers: counts.list_subscriber,
      communities: counts.community,
      community_members: counts.community_member,
      trends: counts.trend,
      articles: counts.article,
    });
  });

  test("a build that fails leaves the world it found, indexes included", async () => {
    const before = await readWorldMeta(sql);
    const tables = await tableCounts(sql);
    const indexes = await indexNames(sql);
    const failing = buildWorld(sql, small, () => {
      throw new Error("the build stops here");
    });
    await expect(failing).rejects.toThrow("the build stops here");
    expect(await readWorldMeta(sql)).toEqual(before);
    expect(await tableCounts(sql)).toEqual(tables);
    expect(await indexNames(sql)).toEqual(indexes);
  });
});

/** A small world built into a database of its own, and its tweets' search vectors as text, in id order. */
async function withBuiltWorld(
  name: string,
  test: (sql: SQL, vectors: () => Promise<{ id: string; v: string }[]>) => Promise<void>,
): Promise<void> {
  const sql = await openPostgres(await w.server.createDatabase(name));
  try {
    await buildWorld(sql, { seed: name, tweets: 2_000, clock: "2026-11-20T12:00:00.000Z" });
    await test(
      sql,
      () => sql<{ id: string; v: string }[]>`SELECT id, search_vector::text AS v FROM tweets ORDER BY id`,
    );
  } finally {
    await sql.close();
  }
}

describe("a world built before X's search tags", () => {
  test("gets from its migration the lexemes a build now writes", () =>
    withBuiltWorld("tag_migration", async (sql, vectors) => {
      const built = await vectors();
      // As a build wrote them before: of the tags, only filter:links and filter:replies.
      await sql`UPDATE tweets SET search_vector = ts_delete(search_vector, ARRAY(
          SELECT lexeme FROM unnest(search_vector) WHERE lexeme LIKE 'filter:%'
            AND lexeme NOT IN ('filter:links', 'filter:replies')))`;
      expect(await vectors()).not.toEqual(built);
      await sql`UPDATE schema_migrations SET version = 1 WHERE component = 'world'`;
      // Up to the tags' own migration: the later ones changed columns this world already has.
      await migrate(sql, "world", worldMigrations.slice(0, 2));
      expect(await vectors()).toEqual(built);
    }));
});

describe("a world built before the time lexemes", () => {
  test("gets from its migration the spans of hours of each tweet that a build now writes", () =>
    withBuiltWorld("time_migration", async (sql, vectors) => {
      const built = await vectors();
      const [hours] = await sql<{ n: number }[]>`SELECT count(DISTINCT lexeme)::int AS n
        FROM tweets, unnest(search_vector) WHERE lexeme LIKE 'time1h:%'`;
      // The world spans days, so its tweets carry many hours, one each.
      expect(hours?.n).toBeGreaterThan(24);
      await sql`UPDATE tweets SET search_vector = ts_delete(search_vector, ARRAY(
          SELECT lexeme FROM unnest(search_vector) WHERE lexeme LIKE 'time%h:%'))`;
      expect(await vectors()).not.toEqual(built);
      await sql`UPDATE schema_migrations SET version = 3 WHERE component = 'world'`;
      await migrate(sql, "world", worldMigrations.slice(0, 4));
      expect(await vectors()).toEqual(built);
    }));
});

describe("a world built before the mentions index", () => {
  test("gets from its migration the rows a build now writes", () =>
    withBuiltWorld("mentions_migration", async (sql) => {
      const rows = () => sql<{ tweet_id: string; user_id: string }[]>`
        SELECT tweet_id, user_id FROM tweet_mentions ORDER BY tweet_id, user_id`;
      const built = await rows();
      expect(built.length).toBeGreaterThan(100);
      await sql`DROP TABLE tweet_mentions`;
      await sql`UPDATE schema_migrations SET version = 4 WHERE component = 'world'`;
      await migrate(sql, "world", worldMigrations.slice(0, 5));
      expect(await rows()).toEqual(built);
    }));
});
