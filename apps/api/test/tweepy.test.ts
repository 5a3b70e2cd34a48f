// tweepy, the most used Python X client, run unchanged by Debian's python3 against /2 (#19): its session
// is pointed at the server, nothing else. ./tweepy/collector.py makes a collector's calls and reports
// what tweepy handed back; this checks the report against /v1 and the ledger.
import { afterAll, beforeAll, expect, it } from "bun:test";
import { join } from "node:path";
import { costOf, FLAT, PER_ITEM } from "@social/core";
import { examples } from "@social/fixtures";
import { startTestServer, type TestServer, walkV1 } from "./harness.ts";

const PYTHON = "/usr/bin/python3";

interface Counts {
  data: { start: string; end: string; tweet_count: number }[];
  meta: { total_tweet_count: number };
}

interface Report {
  search: {
    ids: string[];
    authors: string[];
    included_users: string[];
    referenced: string[];
    included_tweets: string[];
    likes: number[];
    meta: { result_count: number; newest_id: string; oldest_id: string; next_token?: string };
  };
  /** Ids page by page. */
  paginator: string[][];
  timeline: { everything: number; originals: string[]; since_id: string; polled: string[][] };
  mentions: {
    pages: string[][];
    named: string[][];
    authors: string[];
    included_users: string[];
    metas: { result_count: number; newest_id: string; oldest_id: string; next_token?: string }[];
    since_id: string;
    until_id: string;
    start_time: string;
    end_time: string;
    created: string[];
    window: string[];
  };
  users: { usernames: string[]; followers: number[]; errors: { parameter: string; value: string }[] };
  counts: { week: Counts; hours: Counts; start_time: string; end_time: string };
  payment: { raised: string | null; status: number; reason: string; fits: Record<string, number> | null };
  rate_limit: { ids: string[]; waited_s: number; refused: { status: number; reset: string } | null };
}

let server: TestServer;
let limited: TestServer;
let report: Report;
let spent: number;
let poorBalance: number;
const START = 1_000_000;

beforeAll(async () => {
  server = await startTestServer();
  limited = await startTestServer({ rateLimit: { ratePerSecond: 1, burst: 2 } });
  const rich = await server.account(START);
  const poor = await server.account(1);
  const run = Bun.spawn([PYTHON, join(import.meta.dir, "tweepy", "collector.py")], {
    env: {
      PATH: process.env.PATH ?? "",
      SERVER: server.url,
      KEY: rich.key,
      POOR_KEY: poor.key,
      LIMITED_SERVER: limited.url,
      LIMITED_KEY: (await limited.account()).key,
      EXAMPLES: JSON.stringify(examples),
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(run.stdout).text(),
    new Response(run.stderr).text(),
    run.exited,
  ]);
  if (code !== 0) throw new Error(`collector.py exited ${code}: ${err}`);
  report = JSON.parse(out) as Report;
  spent = START - (await server.balance(rich.accountId));
  poorBalance = await server.balance(poor.accountId);
}, 120_000);

afterAll(async () => {
  await server?.close();
  await limited?.close();
});

async function v1<T>(path: string): Promise<T> {
  const { key } = await server.account(START);
  const response = await server.get(path, key);
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

async function v1Ids(path: string): Promise<string[]> {
  return walkV1(server, path, (await server.account(START)).key);
}

const query = encodeURIComponent(examples.search_query);

it("search with expansions: tweepy's Tweet objects, their authors and referenced tweets in includes", async () => {
  const { search } = report;
  expect(search.ids).toEqual((await v1Ids(`/v1/search/recent?query=${query}&limit=20`)).slice(0, 10));
  expect(new Set(search.included_users)).toEqual(new Set(search.authors));
  expect(search.referenced.length).toBeGreaterThan(0);
  expect(new Set(search.included_tweets)).toEqual(new Set(search.referenced));
  expect(search.meta).toMatchObject({ result_count: 10, newest_id: search.ids[0], oldest_id: search.ids[9] });
  expect(search.likes.every((likes) => Number.isInteger(likes))).toBe(true);
});

it("tweepy.Paginator walks search to its last page: the same tweets as /v1", async () => {
  expect(report.paginator.flat()).toEqual(await v1Ids(`/v1/search/recent?query=${query}&limit=20`));
});

it("get_users_tweets with since_id and exclude: only the newer originals, through every page", async () => {
  const { originals, since_id, polled } = report.timeline;
  const newer = originals.filter((id) => BigInt(id) > BigInt(since_id));
  expect(newer.length).toBeGreaterThan(5);
  expect(polled.flat()).toEqual(newer);
  expect(polled.flat()).toEqual(
    await v1Ids(`/v1/users/${examples.user_id}/tweets?exclude=retweets&since_id=${since_id}`),
  );
});

it("get_users_mentions through tweepy.Paginator: every page of /v1's mentions, each naming the user", async () => {
  const { pages, named, authors, included_users, metas } = report.mentions;
  const all = pages.flat();
  expect(pages.length).toBeGreaterThan(1);
  expect(new Set(all).size).toBe(all.length);
  expect(all).toEqual(await v1Ids(`/v1/users/${examples.user_id}/mentions`));
  for (const ids of named) expect(ids).toContain(examples.user_id);
  expect(included_users).toEqual([...new Set(authors)].sort());
  metas.forEach((meta, index) => {
    const page = pages[index] ?? [];
    expect(meta).toMatchObject({ result_count: page.length, newest_id: page[0], oldest_id: page.at(-1) });
    expect(meta.next_token === undefined).toBe(index === pages.length - 1);
  });
});

it("get_users_mentions with since_id, until_id, start_time and end_time: only the tweets within all four", async () => {
  const { pages, since_id, until_id, start_time, end_time, created, window } = report.mentions;
  const [start, end] = [Date.parse(start_time), Date.parse(end_time)];
  const within = pages.flat().filter((id, index) => {
    const at = Date.parse(created[index] ?? "");
    return BigInt(id) > BigInt(since_id) && BigInt(id) < BigInt(until_id) && at >= start && at < end;
  });
  expect(within.length).toBeGreaterThan(5);
  expect(window).toEqual(within);
  const range = new URLSearchParams({ since_id, until_id, start_time, end_time });
  expect(window).toEqual(await v1Ids(`/v1/users/${examples.user_id}/mentions?${range}`));
});

it("get_users(usernames=…): found users in any case, the missing one in errors", async () => {
  expect(report.users.usernames.map((name) => name.toLowerCase())).toEqual([
    examples.username.toLowerCase(),
    examples.source_username.toLowerCase(),
  ]);
  const found = await v1<{ data: { follower_count: number }[] }>(
    `/v1/users/by-usernames?usernames=${examples.username},${examples.source_username}`,
  );
  expect(report.users.followers).toEqual(found.data.map((user) => user.follower_count));
  expect(report.users.errors).toEqual([{ parameter: "usernames", value: "nobody_here_x" }]);
});

it("get_recent_tweets_count: buckets from start_time to end_time, as many as search finds there", async () => {
  const { week, hours, start_time, end_time } = report.counts;
  for (const counts of [week, hours]) {
    const total = counts.data.reduce((sum, bucket) => sum + bucket.tweet_count, 0);
    expect(counts.meta.total_tweet_count).toBe(total);
    const [first, last] = [counts.data[0], counts.data.at(-1)];
    const window = `start_time=${first?.start}&end_time=${last?.end}`;
    expect(await v1Ids(`/v1/search/recent?query=${query}&limit=20&${window}`)).toHaveLength(total);
  }
  expect(week.meta.total_tweet_count).toBeGreaterThan(hours.meta.total_tweet_count);
  // X's labels, which twarc2 relies on: the first bucket starts at start_time, the last ends at end_time.
  expect(hours.data[0]?.start).toBe(start_time.replace("Z", ".000Z"));
  expect(hours.data.at(-1)?.end).toBe(end_time.replace("Z", ".000Z"));
  // 47 h 12 min 13 s: the two partial hours at its ends, and 46 or 47 whole ones between.
  expect(hours.data.length).toBeOneOf([48, 49]);
  hours.data.forEach((bucket, index) => {
    if (index > 0) expect(bucket.start).toBe(hours.data[index - 1]?.end as string);
    if (index > 0 && index < hours.data.length - 1) {
      expect([bucket.start.slice(13), Date.parse(bucket.end) - Date.parse(bucket.start)]).toEqual([
        ":00:00.000Z",
        3_600_000,
      ]);
    }
  });
});

it("402: tweepy raises HTTPException with the reason and what fits; the poor key is not charged", () => {
  expect(report.payment).toEqual({ raised: "HTTPException", status: 402, reason: "balance", fits: null });
  expect(poorBalance).toBe(1);
});

it("429: wait_on_rate_limit sleeps until x-rate-limit-reset and goes on; without it TooManyRequests", () => {
  expect(report.rate_limit.ids).toEqual([examples.user_id, examples.user_id, examples.user_id]);
  expect(report.rate_limit.waited_s).toBeGreaterThan(0.5);
  expect(report.rate_limit.refused?.status).toBe(429);
  expect(Number(report.rate_limit.refused?.reset)).toBeGreaterThan(Date.now() / 1000 - 1);
});

it("the collector was charged by the /v1 rules for each request it made, and nothing more", () => {
  const perItem = (items: number) => costOf(PER_ITEM, items);
  const expected =
    perItem(report.search.ids.length) +
    report.paginator.reduce((sum, page) => sum + perItem(page.length), 0) +
    perItem(report.timeline.everything) +
    report.timeline.polled.reduce((sum, page) => sum + perItem(page.length), 0) +
    report.mentions.pages.reduce((sum, page) => sum + perItem(page.length), 0) +
    perItem(report.mentions.window.length) +
    perItem(report.users.usernames.length) +
    2 * costOf(FLAT, 0);
  expect(report.paginator.length).toBeGreaterThan(1);
  expect(spent).toBe(expected);
});
