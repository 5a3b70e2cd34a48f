// `remove tweets|users ID…` as an operator runs it (#33): a real process on a SQLite file or a real
// PostgreSQL database, the same test body on both. What it prints, then what the servers' Store reads
// after: lookups miss, search, counts and timelines no longer show it, and no row anywhere refers to what
// was removed, while every other row stays. On SQLite the full-text index still agrees with its content.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Backend } from "@social/composition";
import { countWindow, parseQuery } from "@social/core";
import { openDatabase } from "@social/store-sqlite";
import { runAdmin } from "@social/testing";
import { SQL } from "bun";
import { type Json, SAMPLE, type SamplePage, samplePages, testDatabases, withStore } from "./databases.ts";

const [first, second] = samplePages() as [SamplePage, SamplePage];
const pour = first.data[0] as Json & { id: string };
const replyToAda = first.data[1] as Json & { id: string };
const ada = first.includes?.users?.[0] as Json & { id: string };
const longPost = second.data[1] as Json & { id: string };
/** The sample's retweet of `pour`, its newest post: the imported world's clock. */
const retweet = second.data[3] as Json & { id: string; referenced_tweets: { type: string; id: string }[] };

const databases = testDatabases("remove");
const newDatabase = (adapter: "sqlite" | "postgres") => databases.create(adapter);

/** The rows of plain SQL both databases run. */
async function rowsOf(databaseUrl: string, text: string): Promise<Record<string, unknown>[]> {
  if (databaseUrl.startsWith("file:")) {
    const db = openDatabase(databaseUrl);
    try {
      return db.query<Record<string, unknown>, []>(text).all();
    } finally {
      db.close();
    }
  }
  const sql = new SQL(databaseUrl);
  try {
    return [...(await sql.unsafe<Record<string, unknown>[]>(text))];
  } finally {
    await sql.close();
  }
}

/** The rows of plain SQL both databases run, as numbers (PostgreSQL gives a count as text). */
async function query(databaseUrl: string, text: string): Promise<Record<string, number>[]> {
  return (await rowsOf(databaseUrl, text)).map((row) =>
    Object.fromEntries(Object.entries(row).map(([key, value]) => [key, Number(value)])),
  );
}

/** SQLite's FTS5 check that the index holds exactly what its content view yields; nothing on PostgreSQL. */
function checkSearchIndex(databaseUrl: string): void {
  if (!databaseUrl.startsWith("file:")) return;
  const db = openDatabase(databaseUrl);
  try {
    db.run("INSERT INTO tweets_fts (tweets_fts, rank) VALUES ('integrity-check', 1)");
  } finally {
    db.close();
  }
}

async function searchIds(backend: Backend, text: string, order: "recency" | "relevancy" = "recency") {
  const page = await backend.store.searchTweets(parseQuery(text), order, { size: 100 });
  return page.items.map((tweet) => tweet.id);
}

async function countOf(backend: Backend, text: string): Promise<number> {
  const window = countWindow("day", Date.parse("2026-11-25T00:00:00.000Z"));
  return (await backend.store.countTweets(parseQuery(text), window)).reduce((sum, n) => sum + n, 0);
}

/** The summary's table of rows removed, as [table, count] pairs. */
function removedRows(stdout: string): [string, number][] {
  const lines = stdout.split("\n");
  const header = lines.findIndex((line) => /^rows\s+removed$/.test(line));
  if (header < 0) return [];
  const rows: [string, number][] = [];
  for (const line of lines.slice(header + 1)) {
    const match = /^(\w+)\s+([\d,]+)$/.exec(line);
    if (!match) break;
    rows.push([match[1] as string, Number((match[2] as string).replaceAll(",", ""))]);
  }
  return rows;
}

describe.each(["sqlite", "postgres"] as const)("remove on %s", (adapter) => {
  test("a post goes with its retweet from lookups, search, counts, timelines, the clock and trends", async () => {
    const url = await newDatabase(adapter);
    expect((await runAdmin(url, ["import", SAMPLE])).code).toBe(0);
    expect(retweet.referenced_tweets).toEqual([{ type: "retweeted", id: pour.id }]);
    await withStore(url, async (backend) => {
      expect(await searchIds(backend, "pour")).toEqual([retweet.id, pour.id]);
      expect(await countOf(backend, "#brewing")).toBe(2);
    });

    const run = await runAdmin(url, ["remove", "tweets", pour.id, "999", pour.id, "0999"]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    expect(run.stdout).toContain(`removed 1 tweets: ${pour.id}\n`);
    expect(run.stdout).toContain("not found (nothing to remove): 999\n");
    expect(removedRows(run.stdout)).toEqual([["tweets", 2]]);
    // The retweet was the newest post: an imported world's clock goes back to the newest left.
    expect(run.stdout).toContain(
      "world: 5 users, 5 tweets, clock 2026-11-24T12:00:00.000Z, trends #coffee #Lisbon #Porto\n",
    );

    await withStore(url, async (backend) => {
      const { store } = backend;
      expect(await store.tweetsByIds([pour.id, retweet.id])).toEqual([]);
      expect(await searchIds(backend, "pour")).toEqual([]);
      expect(await searchIds(backend, "pour", "relevancy")).toEqual([]);
      expect(await searchIds(backend, "#coffee")).not.toContain(pour.id);
      expect(await countOf(backend, "#brewing")).toBe(0);
      const timeline = await store.timeline(ada.id, "tweets", { size: 100 });
      expect(timeline?.items.map((tweet) => tweet.id)).toEqual([longPost.id]);
      expect(await store.retweeters(pour.id, { size: 10 })).toBeUndefined();
      expect(await store.clockMs()).toBe(Date.parse("2026-11-24T12:00:00.000Z"));
      expect((await store.trends("1", 5))?.map(({ name }) => name)).toEqual(["#coffee", "#Lisbon", "#Porto"]);
    });
    checkSearchIndex(url);
  });

  test("a user goes with their posts, and replies to them lose their to: but stay", async () => {
    const url = await newDatabase(adapter);
    expect((await runAdmin(url, ["import", SAMPLE])).code).toBe(0);
    await withStore(url, async (backend) => {
      expect(await searchIds(backend, "to:ada_writes")).toEqual([replyToAda.id]);
    });

    const run = await runAdmin(url, ["remove", "users", ada.id]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    expect(run.stdout).toContain(`removed 1 users: ${ada.id}\n`);
    expect(run.stdout).not.toContain("not found");
    // Her two posts and the retweet of one of them.
    expect(removedRows(run.stdout)).toEqual([
      ["users", 1],
      ["tweets", 3],
    ]);
    expect(run.stdout).toContain("world: 4 users, 4 tweets, clock 2026-11-24T12:00:00.000Z");

    await withStore(url, async (backend) => {
      const { store } = backend;
      expect(await store.usersByIds([ada.id])).toEqual([]);
      expect(await store.userByUsername("ada_writes")).toBeUndefined();
      expect(await store.timeline(ada.id, "replies", { size: 10 })).toBeUndefined();
      expect(await store.tweetsByIds([pour.id, longPost.id, retweet.id])).toEqual([]);
      expect(await searchIds(backend, "from:ada_writes")).toEqual([]);
      expect(await searchIds(backend, "to:ada_writes")).toEqual([]);
      expect((await store.tweetsByIds([replyToAda.id])).map((tweet) => tweet.id)).toEqual([replyToAda.id]);
      expect(await searchIds(backend, "the second one")).toEqual([replyToAda.id]);
    });
    checkSearchIndex(url);
  });

  test("mentions: an imported tweet naming a user by id is in their mentions; removed, it leaves them", async () => {
    const url = await newDatabase(adapter);
    expect((await runAdmin(url, ["import", SAMPLE])).code).toBe(0);
    // Importing the same file again writes every tweet's index rows anew, to the same rows.
    expect((await runAdmin(url, ["import", SAMPLE])).code).toBe(0);
    const mentionsOf = async (backend: Backend, id: string) =>
      (await backend.store.timeline(id, "mentions", { size: 100 }))?.items.map((tweet) => tweet.id);
    await withStore(url, async (backend) => {
      // The reply opens with @ada_writes, the retweet with RT @ada_writes: both carry her id.
      expect(await mentionsOf(backend, ada.id)).toEqual([retweet.id, replyToAda.id]);
    });

    expect((await runAdmin(url, ["remove", "tweets", replyToAda.id])).code).toBe(0);
    await withStore(url, async (backend) => {
      expect(await mentionsOf(backend, ada.id)).toEqual([retweet.id]);
    });
    // Her removal takes her posts and their retweets, and her timelines with her.
    expect((await runAdmin(url, ["remove", "users", ada.id])).code).toBe(0);
    await withStore(url, async (backend) => {
      expect(await mentionsOf(backend, ada.id)).toBeUndefined();
    });
    const [left] = await query(
      url,
      `SELECT count(*) AS n FROM tweet_mentions m WHERE NOT EXISTS (SELECT 1 FROM tweets t WHERE t.id = m.tweet_id)`,
    );
    expect(left?.n).toBe(0);
  });

  test("in a generated world: every row that refers to a user, or to a post that goes, goes; nothing else", async () => {
    const url = await newDatabase(adapter);
    expect((await runAdmin(url, ["fixtures", "build", "--tweets", "5000"])).code).toBe(0);
    // A user with a bit of everything: a list of their own, follows both ways, a community, replies to
    // them from others and retweets of their posts.
    const [chosen] = await query(
      url,
      `SELECT l.owner_id AS id FROM lists l
       WHERE EXISTS (SELECT 1 FROM follows f WHERE f.followee_id = l.owner_id)
         AND EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = l.owner_id)
         AND EXISTS (SELECT 1 FROM community_members m WHERE m.user_id = l.owner_id)
         AND EXISTS (SELECT 1 FROM tweets r JOIN tweets p ON p.id = r.reply_to_id
                     WHERE p.author_id = l.owner_id AND r.author_id <> l.owner_id)
         AND EXISTS (SELECT 1 FROM tweets r JOIN tweets p ON p.id = r.retweeted_id WHERE p.author_id = l.owner_id)
       ORDER BY l.owner_id LIMIT 1`,
    );
    const user = String(chosen?.id);
    const [post] = await query(url, "SELECT tweet_id AS id FROM community_tweets ORDER BY tweet_id LIMIT 1");
    const [article] = await query(url, "SELECT tweet_id AS id FROM articles ORDER BY tweet_id LIMIT 1");
    expect(chosen && post && article).toBeTruthy();
    const references = (tweets: string, users: string) => `SELECT
      (SELECT count(*) FROM users WHERE id IN (${users})) AS users,
      (SELECT count(*) FROM tweets WHERE id IN (${tweets})) AS tweets,
      (SELECT count(*) FROM follows WHERE follower_id IN (${users}) OR followee_id IN (${users})) AS follows,
      (SELECT count(*) FROM lists WHERE owner_id IN (${users})) AS lists,
      (SELECT count(*) FROM list_members WHERE user_id IN (${users})
         OR list_id IN (SELECT id FROM lists WHERE owner_id IN (${users}))) AS list_members,
      (SELECT count(*) FROM list_subscribers WHERE user_id IN (${users})
         OR list_id IN (SELECT id FROM lists WHERE owner_id IN (${users}))) AS list_subscribers,
      (SELECT count(*) FROM community_members WHERE user_id IN (${users})) AS community_members,
      (SELECT count(*) FROM community_tweets WHERE tweet_id IN (${tweets})) AS community_tweets,
      (SELECT count(*) FROM articles WHERE tweet_id IN (${tweets}) OR author_id IN (${users})) AS articles`;
    const totals = `SELECT ${[
      "users",
      "tweets",
      "follows",
      "lists",
      "list_members",
      "list_subscribers",
      "community_members",
      "community_tweets",
      "articles",
    ]
      .map((table) => `(SELECT count(*) FROM ${table}) AS ${table}`)
      .join(", ")}`;

    for (const [kind, ids] of [
      ["tweets", [String(post?.id), String(article?.id)]],
      ["users", [user]],
    ] as const) {
      const idList = ids.join(", ");
      // A post's retweets go with it; a user's posts, and their retweets, with the user.
      const posts =
        kind === "tweets"
          ? `SELECT id FROM tweets WHERE id IN (${idList})`
          : `SELECT id FROM tweets WHERE author_id IN (${idList}) UNION SELECT rt.id FROM tweets rt JOIN tweets p ON p.id = rt.retweeted_id WHERE p.author_id IN (${idList})`;
      const gone = kind === "tweets" ? `${posts} UNION SELECT id FROM tweets WHERE retweeted_id IN (${posts})` : posts;
      const [expected] = await query(url, references(gone, kind === "users" ? idList : "NULL"));
      const [before] = await query(url, totals);
      const run = await runAdmin(url, ["remove", kind, ...ids]);
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
      const printed = Object.fromEntries(removedRows(run.stdout));
      const [after] = await query(url, totals);
      const taken = Object.fromEntries(
        Object.entries(before ?? {}).map(([table, n]) => [table, n - Number(after?.[table])]),
      );
      const nonzero = Object.fromEntries(Object.entries(expected ?? {}).filter(([, n]) => n > 0));
      expect({ kind, taken }).toEqual({ kind, taken: expected ?? {} });
      expect({ kind, printed }).toEqual({ kind, printed: nonzero });
      expect(await query(url, references(gone, kind === "users" ? idList : "NULL"))).toEqual([
        Object.fromEntries(Object.keys(expected ?? {}).map((table) => [table, 0])),
      ]);
    }

    // The world's counts are its tables' again.
    const [meta] = await rowsOf(url, "SELECT counts FROM world_meta");
    const [tables] = await query(url, totals);
    expect(JSON.parse(String(meta?.counts))).toMatchObject({
      user: tables?.users,
      tweet: tables?.tweets,
      follow: tables?.follows,
      list: tables?.lists,
      list_member: tables?.list_members,
      list_subscriber: tables?.list_subscribers,
      community_member: tables?.community_members,
      article: tables?.articles,
    });

    await withStore(url, async (backend) => {
      const { store } = backend;
      expect(await store.usersByIds([user])).toEqual([]);
      expect(await store.graphUsers(user, "followers", { size: 10 })).toBeUndefined();
      expect(await store.tweetsByIds([String(post?.id), String(article?.id)])).toEqual([]);
      expect(await store.article(String(article?.id))).toBeUndefined();
    });
    checkSearchIndex(url);
  }, 120_000);
});

describe("remove's command line", () => {
  test("a command line without a kind or ids, or with an id that is not one, is a usage error", async () => {
    const url = `file:${join(databases.dir, "never.db")}`;
    for (const args of [["remove"], ["remove", "posts", "1"], ["remove", "tweets"], ["remove", "users", "12a"]]) {
      const run = await runAdmin(url, args);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toContain("Usage:");
    }
    const tooBig = await runAdmin(url, ["remove", "tweets", "9223372036854775808"]);
    expect(tooBig.stderr).toContain('error: "9223372036854775808" is not an id (digits, a 64-bit integer)');
    expect(await Bun.file(join(databases.dir, "never.db")).exists()).toBe(false);
  });
});
