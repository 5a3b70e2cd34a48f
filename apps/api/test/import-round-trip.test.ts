// The import round trip (#21): pages fetched from a running server's own /2 layer, with every expansion
// and field it takes, as a collector writes them (one JSON page per line), imported by the operator's
// CLI into an empty database behind a server started with WORLD=empty. The /v1 answers of the two
// servers must then agree for what the pages carried: lookups of every user and tweet, the timelines of
// the users whose every post was fetched, and searches with every kind of operator.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runAdmin } from "@social/testing";
import { TWEET_EXPANSIONS } from "../src/v2/expansions.ts";
import { MEDIA_FIELDS, TWEET_FIELDS, USER_FIELDS } from "../src/v2/fields.ts";
import { ADAPTERS, startTestServer, type TestServer } from "./harness.ts";

type Json = Record<string, unknown>;

let source: TestServer;
/** Each server's own key. */
const keys = new Map<TestServer, string>();
let dir: string;
let archive: string;
/** Users whose every visible post is in the archive. */
let sampled: { id: string; username: string }[];
const archivedUsers = new Set<string>();
const archivedTweets = new Set<string>();
/** Whom the archived posts reply to and mention most, for to: and @ searches that find some. */
let mostRepliedTo: string;
/** A conversation with a reply in it. */
let conversation: string;
/** Each archived post's time and hashtags (folded), for the trends an imported world counts. */
const posted = new Map<string, { at: number; tags: Set<string> }>();
let mostMentioned: string;

function tally(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

const ALL_TWEET_OPTIONS = `expansions=${TWEET_EXPANSIONS.join(",")}&tweet.fields=${TWEET_FIELDS.join(",")}&user.fields=${USER_FIELDS.join(",")}&media.fields=${MEDIA_FIELDS.join(",")}`;

async function json(server: TestServer, path: string): Promise<Json> {
  const response = await server.get(path, keys.get(server));
  const body = (await response.json()) as Json;
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

beforeAll(async () => {
  source = await startTestServer();
  keys.set(source, (await source.account(10_000_000)).key);
  dir = mkdtempSync(join(tmpdir(), "import-round-trip-"));
  const db = source.sqlite();
  // A spread of users (every 25th by id) and the authors of the newest posts, so the imported world's
  // clock (its newest post) is the source's newest post.
  sampled = db
    .query<{ id: string; username: string }, []>(
      `SELECT CAST(id AS TEXT) AS id, username FROM users WHERE json_extract(doc, '$.protected') = 0
         AND (id % 25 = 0 OR id IN (SELECT author_id FROM tweets ORDER BY created_ms DESC LIMIT 3))`,
    )
    .all();
  const tweetIds = db
    .query<{ id: string }, []>(
      `SELECT CAST(id AS TEXT) AS id FROM tweets WHERE author_protected = 0
         AND author_id IN (${sampled.map(({ id }) => id).join(",")}) ORDER BY id`,
    )
    .all()
    .map(({ id }) => id);
  const lines: string[] = [];
  const usernames = new Map<string, string>();
  const repliedTo = new Map<string, number>();
  const mentioned = new Map<string, number>();
  // twarc2 hydrate's pages: tweets by id with every expansion.
  for (const ids of chunks(tweetIds, 100)) {
    lines.push(JSON.stringify(await json(source, `/2/tweets?ids=${ids.join(",")}&${ALL_TWEET_OPTIONS}`)));
  }
  // twarc2 users' pages, and a user's timeline and a search as their collectors page them.
  for (const ids of chunks(
    sampled.map(({ id }) => id),
    100,
  )) {
    lines.push(
      JSON.stringify(await json(source, `/2/users?ids=${ids.join(",")}&user.fields=${USER_FIELDS.join(",")}`)),
    );
  }
  const first = sampled[0] as { id: string };
  lines.push(JSON.stringify(await json(source, `/2/users/${first.id}/tweets?max_results=100&${ALL_TWEET_OPTIONS}`)));
  lines.push(
    JSON.stringify(await json(source, `/2/tweets/search/recent?query=the&max_results=20&${ALL_TWEET_OPTIONS}`)),
  );
  for (const line of lines) {
    const page = JSON.parse(line) as { data?: Json[]; includes?: { users?: Json[]; tweets?: Json[] } };
    for (const item of [...(page.data ?? []), ...(page.includes?.users ?? []), ...(page.includes?.tweets ?? [])]) {
      if ("username" in item) {
        archivedUsers.add(item.id as string);
        usernames.set(item.id as string, item.username as string);
        continue;
      }
      archivedTweets.add(item.id as string);
      const tags = (item.entities as { hashtags?: { tag: string }[] } | undefined)?.hashtags ?? [];
      posted.set(item.id as string, {
        at: Date.parse(item.created_at as string),
        tags: new Set(tags.map(({ tag }) => tag.toLowerCase())),
      });
      if (typeof item.in_reply_to_user_id === "string") conversation = item.conversation_id as string;
      if (typeof item.in_reply_to_user_id === "string") tally(repliedTo, item.in_reply_to_user_id);
      const mentions = (item.entities as { mentions?: { username: string }[] } | undefined)?.mentions ?? [];
      for (const { username } of mentions) tally(mentioned, username);
    }
  }
  const top = (counts: Map<string, number>) => [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] as string;
  mostRepliedTo = usernames.get(top(repliedTo)) as string;
  mostMentioned = top(mentioned);
  archive = join(dir, "archive.jsonl");
  writeFileSync(archive, `${lines.join("\n")}\n`);
}, 120_000);

afterAll(async () => {
  await source?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function importArchive(databaseUrl: string): Promise<string> {
  const { code, stdout, stderr } = await runAdmin(databaseUrl, ["import", archive]);
  if (code !== 0) throw new Error(`import exited ${code}: ${stderr}`);
  return stdout;
}

/** Every page of a /v1 read, its items' ids in order. */
async function walkIds(server: TestServer, path: string): Promise<string[]> {
  const ids: string[] = [];
  let next: string | undefined;
  for (let pages = 0; pages < 200; pages++) {
    const separator = path.includes("?") ? "&" : "?";
    const body = await json(server, `${path}${next ? `${separator}next_token=${encodeURIComponent(next)}` : ""}`);
    const data = body.data as Json[] | { tweets: Json[] };
    const items = Array.isArray(data) ? data : data.tweets;
    ids.push(...items.map((item) => item.id as string));
    next = (body.meta as { pagination?: { next_token?: string } }).pagination?.next_token;
    if (next === undefined) return ids;
  }
  throw new Error(`${path}: more than 200 pages`);
}

describe("a server started with WORLD=empty", () => {
  test("has no users or posts, and its demo and trends say what is missing", async () => {
    const empty = await startTestServer({ world: "empty" });
    try {
      keys.set(empty, (await empty.account(100)).key);
      const search = await json(empty, "/v1/search/recent?query=the");
      expect(search.data).toEqual([]);
      const demo = await empty.get("/demo");
      expect(demo.status).toBe(404);
      expect(((await demo.json()) as { error: { message: string } }).error.message).toContain("nothing to show yet");
      const trends = await empty.get("/v1/trends", keys.get(empty));
      expect(trends.status).toBe(404);
      expect(((await trends.json()) as { error: { message: string } }).error.message).toContain("imported posts");
    } finally {
      await empty.close();
    }
  });
});

describe.each(ADAPTERS)("an archive of /2 pages imported on %s", (adapter) => {
  let target: TestServer;

  beforeAll(async () => {
    target = await startTestServer({ adapter, world: "empty" });
    keys.set(target, (await target.account(10_000_000)).key);
    const summary = await importArchive(target.databaseUrl);
    // Everything the pages carried was taken: no line or object refused.
    expect(summary).not.toContain("refused");
    expect(summary).toContain(`users   ${archivedUsers.size.toLocaleString("en-US")}`);
    expect(summary).toContain(`tweets  ${archivedTweets.size.toLocaleString("en-US")}`);
  }, 120_000);

  afterAll(async () => {
    await target?.close();
  });

  test("every user the pages carried is looked up alike", async () => {
    for (const ids of chunks([...archivedUsers], 100)) {
      const path = `/v1/users?ids=${ids.join(",")}`;
      const [expected, actual] = await Promise.all([json(source, path), json(target, path)]);
      expect(actual.data).toEqual(expected.data);
    }
  });

  test("every imported tweet is looked up alike", async () => {
    expect(archivedTweets.size).toBeGreaterThan(500);
    for (const ids of chunks([...archivedTweets], 100)) {
      const path = `/v1/tweets?ids=${ids.join(",")}`;
      const [expected, actual] = await Promise.all([json(source, path), json(target, path)]);
      expect(actual.data).toEqual(expected.data);
    }
  });

  test("the timelines of the users whose every post was fetched are the same", async () => {
    for (const user of sampled) {
      for (const kind of ["tweets", "tweets/replies", "media"]) {
        const path = `/v1/users/${user.id}/${kind}`;
        expect(await walkIds(target, path)).toEqual(await walkIds(source, path));
      }
    }
  });

  test("trends are the hashtags of the imported world's last day, and the demo shows its most followed author", async () => {
    const clock = Math.max(...[...posted.values()].map(({ at }) => at));
    const counts = new Map<string, number>();
    for (const { at, tags } of posted.values()) {
      if (at > clock - 86_400_000) for (const tag of tags) tally(counts, tag);
    }
    const trends = (await json(target, "/v1/trends?limit=50")).data as { query: string; tweet_count: number }[];
    expect(trends.length).toBe(Math.min(50, counts.size));
    for (const trend of trends) expect(trend.tweet_count).toBe(counts.get(trend.query.slice(1)) as number);
    const demo = await target.get("/demo");
    expect(demo.status).toBe(200);
    const profile = ((await demo.json()) as { data: { user: { id: string }; recent_tweets: unknown[] } }).data;
    expect(archivedUsers.has(profile.user.id)).toBe(true);
    expect(profile.recent_tweets.length).toBeGreaterThan(0);
    expect((await target.get("/demo?run=search")).status).toBe(200);
  });

  test("search with every kind of operator finds the imported tweets the source finds", async () => {
    const user = sampled[0] as { username: string };
    const queries = [
      "the",
      '"of the"',
      "coffee OR tea",
      "the -and",
      `from:${user.username}`,
      `to:${mostRepliedTo}`,
      `@${mostMentioned}`,
      "#" + "coffee",
      "lang:en the",
      "is:reply the",
      "is:retweet",
      "is:quote",
      "is:verified the",
      "has:links",
      "has:media",
      "has:mentions",
      "has:hashtags",
      "min_faves:50",
      "min_retweets:10 the",
      "-is:retweet -is:reply the",
      `conversation_id:${conversation}`,
    ];
    // The last two days of the source's clock, which is also the imported world's (its newest post).
    const since = new Date(((await source.backend.store.clockMs()) as number) - 2 * 86_400_000).toISOString();
    const empty: string[] = [];
    for (const query of queries) {
      const path = `/v1/search/recent?query=${encodeURIComponent(query)}&limit=20&start_time=${since}`;
      const expected = (await walkIds(source, path)).filter((id) => archivedTweets.has(id));
      expect({ query, ids: await walkIds(target, path) }).toEqual({ query, ids: expected });
      if (expected.length === 0) empty.push(query);
    }
    // The comparison means something only where the source found imported tweets.
    expect(empty).toEqual([]);
  });
});
