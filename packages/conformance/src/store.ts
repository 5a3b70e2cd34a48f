// The Store conformance oracle: the default world built once into SQLite and once into PostgreSQL, and
// every Store read asked of both with the same arguments, page after page with the cursors
// they hand out, expecting the same answers to the byte: the same items in the same order, the same
// cursors, the same `undefined`s, the same JSON text of id pages and the same errors.
import type { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  bucketCount,
  type CommunityTweetSort,
  type Cursor,
  countWindow,
  type GraphDirection,
  type Page,
  parseQuery,
  type ReadRange,
  type Store,
  type TimeFilter,
  type TimelineKind,
} from "@social/core";
import { DEFAULT_WORLD, examples } from "@social/fixtures";
import { buildWorld as buildSqliteWorld, openDatabase, SqliteStore } from "@social/store-sqlite";
import type { SQL } from "bun";
import { openPostgres } from "../../src/database.ts";
import { PostgresStore } from "../../src/store/postgres-store.ts";
import { buildWorld } from "../../src/world/build.ts";
import { type PostgresServer, startPostgres } from "../../testing/pg-server.ts";

export interface Worlds {
  server: PostgresServer;
  db: Database;
  sql: SQL;
  sqlite: Store;
  postgres: Store;
  /** How long PostgreSQL took to build the default world. */
  buildMs: number;
  /** The temp directory of the SQLite world. */
  dir: string;
}

async function buildWorlds(): Promise<Worlds> {
  const dir = mkdtempSync(join(tmpdir(), "social-pg-oracle-"));
  const server = await startPostgres();
  const db = openDatabase(join(dir, "world.db"));
  buildSqliteWorld(db, DEFAULT_WORLD);
  const sql = await openPostgres(await server.createDatabase("oracle"));
  const started = performance.now();
  await buildWorld(sql, DEFAULT_WORLD);
  const buildMs = performance.now() - started;
  // A walk shorter than the world, so that search pages also gather through the index.
  const postgres = new PostgresStore(sql, { newestWalk: 500 });
  return { server, db, sql, sqlite: new SqliteStore(db), postgres, buildMs, dir };
}

// bun test runs every file in one process but fires no exit event, so the worlds are shared by the test
// files that use them at once and removed by the last one to let go.
let shared: { worlds: Promise<Worlds>; users: number } | undefined;

/** The default world in both databases; every call must be matched by one of releaseWorlds. */
export function acquireWorlds(): Promise<Worlds> {
  shared ??= { worlds: buildWorlds(), users: 0 };
  shared.users++;
  return shared.worlds;
}

export async function releaseWorlds(): Promise<void> {
  if (shared === undefined || --shared.users > 0) return;
  const { worlds } = shared;
  shared = undefined;
  const { sql, db, server, dir } = await worlds;
  await sql.close();
  db.close();
  server.stop();
  rmSync(dir, { recursive: true, force: true });
}

/** What a read gave: its value, or the error it failed with, as something both adapters can be compared by. */
async function outcome(read: () => Promise<unknown>): Promise<string> {
  try {
    return JSON.stringify({ value: await read() }) ?? "undefined";
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    return JSON.stringify({ error: error.name, message: error.message, code: (error as { code?: unknown }).code });
  }
}

/** Both stores' answers to `read`, which must be byte for byte the same; returns SQLite's. */
async function same<T>(worlds: Worlds, read: (store: Store) => Promise<T>): Promise<T | undefined> {
  const expected = await outcome(() => read(worlds.sqlite));
  expect(await outcome(() => read(worlds.postgres))).toBe(expected);
  return expected.startsWith('{"value"') ? read(worlds.sqlite) : undefined;
}

/**
 * Walks a paginated read to its end (or `maxPages`) on both stores, each page asked with the cursor of the
 * one before; returns how many items the walk compared.
 */
async function walkBoth<T>(
  worlds: Worlds,
  read: (store: Store, after: Cursor | undefined) => Promise<Page<T> | undefined>,
  maxPages = 200,
): Promise<number> {
  let after: Cursor | undefined;
  let items = 0;
  for (let pages = 0; pages < maxPages; pages++) {
    const page = await same(worlds, (store) => read(store, after));
    if (page === undefined) return items;
    items += page.items.length;
    if (page.next === undefined) return items;
    after = page.next;
  }
  return items;
}

/** Ids of `table` that the SQLite world holds, `count` of them spread evenly over the table. */
function spread(db: Database, select: string, count: number): string[] {
  const ids = db.query<{ id: number }, []>(select).all();
  const step = Math.max(1, Math.floor(ids.length / count));
  return ids.filter((_, index) => index % step === 0).map((row) => String(row.id));
}

const MISSING_IDS = ["1", "0", "abc", "", " 1000000001", "01000000001", "9007199254740993", "-1"];
const TIMELINES: TimelineKind[] = ["tweets", "originals", "replies", "media"];
const DIRECTIONS: GraphDirection[] = ["followers", "following"];
const SORTS: CommunityTweetSort[] = ["relevance", "recency", "likes"];
const TIME_FILTERS: TimeFilter[] = ["day", "week", "month", "year", "all"];

export function storeConformance(): void {
  let w: Worlds;
  let protectedUsers: string[];
  let protectedTweets: string[];

  describe("the PostgreSQL store answers as the SQLite store", () => {
    afterAll(releaseWorlds);

    test("the worlds are built", async () => {
      w = await acquireWorlds();
      protectedUsers = w.db
        .query<{ id: number }, []>("SELECT id FROM users WHERE json_extract(doc, '$.protected') ORDER BY id")
        .all()
        .map((row) => String(row.id));
      protectedTweets = spread(w.db, "SELECT id FROM tweets WHERE author_protected = 1 ORDER BY id", 20);
      expect(protectedUsers.length).toBeGreaterThan(0);
      expect(protectedTweets.length).toBeGreaterThan(0);
    }, 60_000);

    test("tweets and users by ids: order, repeats, missing and protected ids", async () => {
      const tweetIds = [
        examples.tweet_id,
        ...protectedTweets.slice(0, 3),
        examples.thread_tweet_id,
        ...MISSING_IDS,
        examples.tweet_id,
        ...spread(w.db, "SELECT id FROM tweets ORDER BY id", 100),
      ];
      const tweets = await same(w, (store) => store.tweetsByIds(tweetIds));
      expect(tweets?.length).toBeGreaterThan(90);
      expect(await same(w, (store) => store.tweetsByIds([]))).toEqual([]);
      const userIds = [
        examples.user_id,
        ...protectedUsers,
        ...MISSING_IDS,
        ...spread(w.db, "SELECT id FROM users", 50),
      ];
      expect((await same(w, (store) => store.usersByIds(userIds)))?.length).toBeGreaterThan(50);
    });

    test("users by username, case-insensitive in ASCII only", async () => {
      const protectedName = w.db
        .query<{ username: string }, [number]>("SELECT username FROM users WHERE id = ?")
        .get(Number(protectedUsers[0]))?.username;
      for (const name of [
        examples.username,
        examples.username.toUpperCase(),
        protectedName ?? "",
        "nobody_here",
        "",
        "ORBİTALMAYA",
        "orbitalmaya ",
      ]) {
        await same(w, (store) => store.userByUsername(name));
      }
      expect(await same(w, (store) => store.userByUsername(examples.username.toUpperCase()))).toBeDefined();
      const names = [
        examples.username.toUpperCase(),
        "nobody_here",
        protectedName ?? "",
        examples.source_username,
        examples.username,
        "ORBİTALMAYA",
        'a"b\\c,{d}',
        "nul\u0000name",
      ];
      expect((await same(w, (store) => store.usersByUsernames(names)))?.length).toBe(4);
      expect(await same(w, (store) => store.usersByUsernames([]))).toEqual([]);
    });

    test("timelines of every kind, every page, for public, protected and missing users", async () => {
      let items = 0;
      const users = [
        examples.user_id,
        examples.media_user_id,
        ...protectedUsers.slice(0, 3),
        "1",
        ...spread(w.db, "SELECT id FROM users", 15),
      ];
      for (const user of users) {
        for (const kind of TIMELINES) {
          for (const size of [7, 100]) {
            items += await walkBoth(w, (store, after) => store.timeline(user, kind, { size, after }));
          }
        }
      }
      expect(items).toBeGreaterThan(1000);
    });

    test("timelines within read ranges: ids, times and both, past 2^53 too, every page", async () => {
      const ids = spread(w.db, `SELECT id FROM tweets WHERE author_id = ${examples.user_id} ORDER BY id`, 2);
      const [low, high] = ids as [string, string];
      const [early, late] = spread(w.db, "SELECT created_ms AS id FROM tweets ORDER BY created_ms", 2).map(Number);
      const ranges: ReadRange[] = [
        { sinceId: low },
        { untilId: high },
        { sinceId: low, untilId: high },
        { startMs: early as number, endMs: late as number },
        { sinceId: "1800000000000000001" },
        { untilId: "1800000000000000001", startMs: early as number },
      ];
      let items = 0;
      for (const range of ranges) {
        for (const kind of TIMELINES) {
          items += await walkBoth(w, (store, after) =>
            store.timeline(examples.user_id, kind, { size: 7, after, range }),
          );
        }
      }
      expect(items).toBeGreaterThan(50);
    });

    test("followers and followings, all or verified only, every page", async () => {
      let items = 0;
      const users = [
        examples.user_id,
        examples.media_user_id,
        protectedUsers[0] ?? "",
        "1",
        ...spread(w.db, "SELECT id FROM users", 10),
      ];
      for (const user of users) {
        for (const direction of DIRECTIONS) {
          for (const verifiedOnly of [false, true]) {
            items += await walkBoth(w, (store, after) =>
              store.graphUsers(user, direction, { size: 50, after }, { verifiedOnly }),
            );
          }
        }
      }
      expect(items).toBeGreaterThan(500);
    });

    test("follower and following ids: the same JSON text, counts and cursors, every page", async () => {
      const users = [examples.user_id, protectedUsers[0] ?? "", "1", ...spread(w.db, "SELECT id FROM users", 10)];
      let ids = 0;
      for (const user of users) {
        for (const direction of DIRECTIONS) {
          for (const size of [5000, 37, 1]) {
            let after: Cursor | undefined;
            for (let pages = 0; pages < 30; pages++) {
              const page = await same(w, (store) => store.graphIds(user, direction, { size, after }));
              const pg = await w.postgres.graphIds(user, direction, { size, after });
              expect(pg?.ids.text).toBe(page?.ids.text as string);
              if (page === undefined) break;
              ids += page.count;
              if (page.next === undefined) break;
              after = page.next;
            }
          }
        }
      }
      expect(ids).toBeGreaterThan(500);
      const empty = await w.postgres.graphIds(examples.user_id, "followers", { size: 10, after: [0, 0] });
      expect(empty?.ids.text).toBe("[]");
    });

    test("relationships, both ways, any case, and missing users", async () => {
      const { source_username: source, target_username: target } = examples;
      for (const [a, b] of [
        [source, target],
        [target, source],
        [source.toUpperCase(), target],
        [source, source],
        [source, "nobody_here"],
        ["nobody_here", target],
      ] as const) {
        await same(w, (store) => store.relationship(a, b));
      }
    });

    test("quotes, retweeters and conversations, every page, with protected tweets among them", async () => {
      const parents = (column: string) =>
        spread(w.db, `SELECT DISTINCT ${column} AS id FROM tweets WHERE ${column} IS NOT NULL ORDER BY 1`, 15);
      const protectedParents = (column: string) =>
        spread(
          w.db,
          `SELECT DISTINCT ${column} AS id FROM tweets WHERE author_protected = 1 AND ${column} IS NOT NULL`,
          5,
        );
      const common = [
        examples.tweet_id,
        examples.quoted_tweet_id,
        examples.retweeted_tweet_id,
        examples.thread_tweet_id,
      ];
      const missing = [...protectedTweets.slice(0, 2), "1", "abc"];
      let items = 0;
      for (const tweet of [...common, ...missing, ...parents("quoted_id"), ...protectedParents("quoted_id")]) {
        items += await walkBoth(w, (store, after) => store.quotes(tweet, { size: 5, after }));
      }
      for (const tweet of [...common, ...missing, ...parents("retweeted_id"), ...protectedParents("retweeted_id")]) {
        items += await walkBoth(w, (store, after) => store.retweeters(tweet, { size: 5, after }));
      }
      const conversations = [
        ...common,
        examples.reply_tweet_id,
        ...missing,
        ...parents("reply_to_id"),
        ...protectedParents("reply_to_id"),
        ...parents("conversation_id"),
      ];
      for (const tweet of conversations) {
        items += await walkBoth(w, (store, after) => store.conversation(tweet, { size: 10, after }));
      }
      expect(items).toBeGreaterThan(100);
    });

    test("self-threads and articles", async () => {
      const tweets = [
        examples.thread_tweet_id,
        examples.reply_tweet_id,
        examples.tweet_id,
        examples.article_tweet_id,
        ...protectedTweets.slice(0, 3),
        "1",
        ...spread(w.db, "SELECT id FROM tweets WHERE reply_to_id IS NOT NULL ORDER BY id", 30),
      ];
      for (const tweet of tweets) {
        for (const max of [1, 3, 25]) await same(w, (store) => store.selfThread(tweet, max));
      }
      const thread = await same(w, (store) => store.selfThread(examples.thread_tweet_id, 25));
      expect(thread?.tweets.length).toBeGreaterThan(1);
      for (const tweet of [
        examples.article_tweet_id,
        examples.tweet_id,
        "1",
        ...spread(w.db, "SELECT tweet_id AS id FROM articles", 30),
      ]) {
        await same(w, (store) => store.article(tweet));
      }
      expect(await same(w, (store) => store.article(examples.article_tweet_id))).toBeDefined();
    });

    test("every list's tweets, members and subscribers, every page", async () => {
      let items = 0;
      for (const list of [...spread(w.db, "SELECT id FROM lists ORDER BY id", 100), "1", "abc"]) {
        items += await walkBoth(w, (store, after) => store.listTweets(list, { size: 50, after }), 20);
        items += await walkBoth(w, (store, after) => store.listMembers(list, { size: 9, after }));
        items += await walkBoth(w, (store, after) => store.listSubscribers(list, { size: 9, after }));
      }
      expect(items).toBeGreaterThan(1000);
    });

    test("every community, its members, moderators and tweets in every order and time filter", async () => {
      let items = 0;
      for (const community of [...spread(w.db, "SELECT id FROM communities ORDER BY id", 100), "1", "abc"]) {
        await same(w, (store) => store.community(community));
        items += await walkBoth(w, (store, after) => store.communityMembers(community, { size: 20, after }));
        items += await walkBoth(w, (store, after) => store.communityModerators(community, { size: 2, after }));
        for (const sort of SORTS) {
          for (const filter of TIME_FILTERS) {
            items += await walkBoth(
              w,
              (store, after) => store.communityTweets(community, sort, filter, { size: 25, after }),
              20,
            );
          }
        }
      }
      expect(items).toBeGreaterThan(1000);
    });

    test("community search by words, largest first, every page", async () => {
      const queries = [
        examples.community_query,
        examples.community_query.toUpperCase(),
        "",
        "   ",
        "the",
        "and of",
        "night sky",
        "Night-Sky!",
        "nothing_matches_this",
        "#ai",
        "café",
      ];
      let items = 0;
      for (const query of queries) {
        for (const size of [1, 5, 100]) {
          items += await walkBoth(w, (store, after) => store.searchCommunities(query, { size, after }));
        }
      }
      expect(items).toBeGreaterThan(20);
    });

    test("trends of a place, by rank, and an unknown place", async () => {
      for (const [woeid, limit] of [
        [examples.woeid, 1],
        [examples.woeid, 20],
        [examples.woeid, 100],
        ["999999999", 20],
        ...spread(w.db, "SELECT DISTINCT woeid AS id FROM trends", 10).map((woeid) => [woeid, 50] as const),
      ] as const) {
        await same(w, (store) => store.trends(woeid, limit));
      }
      expect((await same(w, (store) => store.trends(examples.woeid, 100)))?.length).toBeGreaterThan(0);
    });

    test("a cursor of another shape is an invalid page token on both", async () => {
      const cursors: Cursor[] = [["x"], [1, 2, 3], [], ["1", "2"]];
      for (const after of cursors) {
        await same(w, (store) => store.timeline(examples.user_id, "tweets", { size: 5, after }));
        await same(w, (store) => store.graphUsers(examples.user_id, "followers", { size: 5, after }));
        await same(w, (store) => store.graphIds(examples.user_id, "followers", { size: 5, after }));
        await same(w, (store) => store.communityTweets(examples.community_id, "likes", "all", { size: 5, after }));
        await same(w, (store) => store.searchCommunities("", { size: 5, after }));
      }
      await expect(w.postgres.timeline(examples.user_id, "tweets", { size: 5, after: ["x"] })).rejects.toMatchObject({
        code: "invalid_request",
      });
      // No store issues a fraction or an unsafe integer for a key of whole numbers, and cursors are signed:
      // PostgreSQL calls such a key foreign where SQLite would compare with it.
      for (const after of [[1.5], [2 ** 53 + 2]]) {
        await expect(w.postgres.quotes(examples.quoted_tweet_id, { size: 5, after })).rejects.toMatchObject({
          code: "invalid_request",
        });
      }
    });

    // Recency pages must be the same to the byte, cursors included. Relevancy ranks by each database's
    // own text score (bm25, ts_rank), so there both must hand out the same matches, each once.
    test("recent search: the same pages newest first, the same matches by relevancy", async () => {
      const ranked = [
        examples.search_query,
        "coffee",
        "#ai",
        '"open source"',
        "coffee OR tea lang:en",
        "since:2020-01-01 until:2030-01-01 data",
        // More than 2,000 matches before the negation: the candidates are the newest 2,000 without replies.
        "the -filter:replies",
        // An OR that holds a negation filters the candidates of `the`, on SQLite as here.
        "the (and OR -filter:replies)",
      ];
      const unranked = [
        `from:${examples.username}`,
        `from:${examples.username} -filter:replies`,
        "lang:ja",
        "min_faves:50 filter:links",
        "-lang:en",
      ];
      let items = 0;
      for (const text of [...ranked, ...unranked]) {
        const query = parseQuery(text);
        items += await walkBoth(w, (store, after) => store.searchTweets(query, "recency", { size: 50, after }), 10);
      }
      expect(items).toBeGreaterThan(1000);
      for (const text of ranked) {
        const query = parseQuery(text);
        const relevancy = async (store: Store) => {
          const ids: string[] = [];
          let after: Cursor | undefined;
          // A relevancy walk ends within the ranked candidates (2,000 at most), here 20 pages.
          for (let pages = 0; pages < 21; pages++) {
            const page = await store.searchTweets(query, "relevancy", { size: 100, after });
            ids.push(...page.items.map((tweet) => tweet.id));
            if (page.next === undefined) return ids;
            after = page.next;
          }
          throw new Error(`the relevancy walk of ${text} does not end`);
        };
        const [sqliteIds, postgresIds] = [await relevancy(w.sqlite), await relevancy(w.postgres)];
        expect(new Set(postgresIds).size, text).toBe(postgresIds.length);
        expect([...postgresIds].sort(), text).toEqual([...sqliteIds].sort());
        expect(postgresIds.length, text).toBeGreaterThan(0);
      }
    });

    test("counts per minute, hour and day over the world's last days: the same on both", async () => {
      const clock = await same(w, (store) => store.clockMs());
      expect(clock).toBeNumber();
      const windows = [
        countWindow("minute", clock as number),
        countWindow("hour", clock as number),
        countWindow("day", clock as number),
        countWindow("hour", clock as number, (clock as number) - 30 * 3_600_000, (clock as number) - 3_600_000),
        // Inside units at both ends: the first and last buckets are parts of hours.
        countWindow(
          "hour",
          clock as number,
          (clock as number) - 30 * 3_600_000 - 1_017_000,
          (clock as number) - 605_000,
        ),
      ];
      const queries = [
        examples.search_query,
        "#ai",
        `from:${examples.username}`,
        "lang:ja -is:retweet",
        "has:media OR has:links",
        "nothing_matches_this",
      ];
      let total = 0;
      for (const text of queries) {
        for (const window of windows) {
          const counts = await same(w, (store) => store.countTweets(parseQuery(text), window));
          expect(counts).toHaveLength(bucketCount(window));
          total += (counts ?? []).reduce((sum, n) => sum + n, 0);
        }
      }
      expect(total).toBeGreaterThan(100);
    });
  });
}
