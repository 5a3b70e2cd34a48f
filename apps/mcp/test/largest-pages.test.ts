// The output budget against the largest answers the tools can give (#17): every tool asked for its
// biggest page, in full view, about the busiest account of a world whose biggest account fills a
// 5,000-id follower page. A page is bounded by its limits, not by the world, so this world's largest
// pages are those of the 1,000,000-tweet world (it only needs an account with 5,000 followers); it
// builds in seconds where the large world takes a minute. MCP_LARGEST_PAGES_WORLD=<a SQLite file of the
// large world> runs the same on it. Each result's text stays within the budget and leads with the
// charge and the next_token; a page that was cut continues with its next_token, losing and repeating
// nothing against the same read with a budget that holds it whole.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_MCP_MAX_CHARS, MIN_MCP_MAX_CHARS } from "@social/composition";
import { DEFAULT_CLOCK, LARGE_WORLD, worldExamples } from "@social/fixtures";
import { ALL_TOOLS } from "../src/tools.ts";
import { type McpHttpServer, openTestWorld, startMcpHttpServer, type TestWorld } from "./harness.ts";
import { structuredOf, textOf } from "./tool-results.ts";

setDefaultTimeout(120_000);

const LARGE_FILE = process.env.MCP_LARGEST_PAGES_WORLD;
/** About 7,500 users: the busiest is followed by over 5,000 of them. */
const WORLD = LARGE_FILE ? LARGE_WORLD : { seed: "social-budget", tweets: 120_000, clock: DEFAULT_CLOCK };
const examples = worldExamples(WORLD);
/** The most characters a server allows; a page this large is never cut, so it is the reference. */
const WHOLE = 1_000_000;

let world: TestWorld;
let budgeted: McpHttpServer;
let smallest: McpHttpServer;
let whole: McpHttpServer;
let clients: { budgeted: Client; smallest: Client; whole: Client };

async function connect(server: McpHttpServer, key: string): Promise<Client> {
  const client = new Client({ name: "largest-pages", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(server.url, { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
  );
  return client;
}

beforeAll(async () => {
  world = openTestWorld(WORLD, LARGE_FILE);
  budgeted = await startMcpHttpServer(world);
  smallest = await startMcpHttpServer(world, undefined, MIN_MCP_MAX_CHARS);
  whole = await startMcpHttpServer(world, undefined, WHOLE);
  const { key } = world.account(10_000_000);
  clients = {
    budgeted: await connect(budgeted, key),
    smallest: await connect(smallest, key),
    whole: await connect(whole, key),
  };
});

afterAll(async () => {
  for (const client of Object.values(clients ?? {})) await client.close();
  for (const server of [budgeted, smallest, whole]) await server?.stop();
  world?.close();
});

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = textOf(result);
  expect([name, result.isError ? text : "ok"]).toEqual([name, "ok"]);
  return { text, structured: structuredOf(result) };
}

/** The items of a page, by what identifies them: ids, or a record's id. */
function keysOf(data: unknown): string[] {
  const items = Array.isArray(data) ? data : [];
  return items.map((item) => (typeof item === "string" ? item : String((item as { id?: unknown }).id)));
}

const hundred = (first: number) => Array.from({ length: 100 }, (_, i) => String(first + i)).join(",");
const userIds = hundred(Number(examples.user_id));

/** Each tool's largest answer: the biggest page or the most ids it takes, about the busiest account. */
function largestCalls(tweetIds: string, usernames: string): [tool: string, args: Record<string, unknown>][] {
  const user = { id: examples.user_id };
  return [
    ["search_recent_tweets", { query: examples.search_query, limit: 20 }],
    ["get_user", user],
    ["get_user_by_username", { username: examples.username }],
    ["get_users", { ids: userIds }],
    ["get_user_tweets", user],
    ["get_user_tweets_and_replies", user],
    ["get_user_media", { id: examples.media_user_id }],
    ["get_user_followers", { ...user, mode: "ids", limit: 5000 }],
    ["get_user_followers", user],
    ["get_user_following", { ...user, mode: "ids", limit: 5000 }],
    ["get_user_following", user],
    ["get_user_verified_followers", user],
    ["get_relationship", { source: examples.source_username, target: examples.target_username }],
    ["get_tweet", { id: examples.tweet_id }],
    ["get_tweets", { ids: tweetIds }],
    ["get_quote_tweets", { id: examples.quoted_tweet_id }],
    ["get_retweeters", { id: examples.retweeted_tweet_id }],
    ["get_list_tweets", { id: examples.list_id }],
    ["get_list_members", { id: examples.list_id }],
    ["get_list_subscribers", { id: examples.list_id }],
    ["get_community", { id: examples.community_id }],
    ["search_communities", { query: examples.community_query }],
    ["get_community_members", { id: examples.community_id }],
    ["get_community_moderators", { id: examples.community_id }],
    ["get_trends", { limit: 100 }],
    ["search_recent_tweets_enriched", { query: examples.search_query, limit: 20 }],
    ["get_community_tweets", { id: examples.community_id }],
    ["get_tweet_article", { id: examples.article_tweet_id }],
    ["get_tweet_conversation", { id: examples.thread_tweet_id }],
    ["get_tweet_thread", { id: examples.thread_tweet_id }],
    ["get_profile", user],
    ["get_profile_by_username", { username: examples.username }],
    ["get_tweet_context", { id: examples.quoted_tweet_id }],
    ["get_users_by_usernames", { usernames }],
    // A day of minutes: 1,441 buckets, over three times the default budget.
    ["count_recent_tweets", { query: examples.search_query, granularity: "minute" }],
    ["get_user_mentions", user],
  ];
}

/** The usernames of the hundred users of `userIds`, each in other case. */
async function hundredUsernames(): Promise<string> {
  const { structured } = await call(clients.whole, "get_users", { ids: userIds });
  const names = (structured.data as { username: string }[]).map((user) => user.username.toUpperCase());
  expect(names).toHaveLength(100);
  return names.join(",");
}

/** A hundred tweets that exist, from the newest pages of a search. */
async function hundredTweetIds(): Promise<string> {
  const ids: string[] = [];
  let token: string | undefined;
  while (ids.length < 100) {
    const args = { query: examples.search_query, limit: 20, ...(token ? { next_token: token } : {}) };
    const { structured } = await call(clients.whole, "search_recent_tweets", args);
    ids.push(...keysOf(structured.data));
    token = structured.next_token;
  }
  return ids.slice(0, 100).join(",");
}

describe("the largest answers of every tool", () => {
  test.each([
    ["the default budget", DEFAULT_MCP_MAX_CHARS, () => clients.budgeted],
    ["the smallest budget", MIN_MCP_MAX_CHARS, () => clients.smallest],
  ] as const)("within %s (%d characters), each leading with its charge and next_token", async (_, maxChars, client) => {
    const calls = largestCalls(await hundredTweetIds(), await hundredUsernames());
    const asked = new Set(calls.map(([tool]) => tool));
    expect(ALL_TOOLS.filter((tool) => tool.kind === "read" && !asked.has(tool.name))).toEqual([]);
    const sizes: Record<string, number> = {};
    const views = new Set(ALL_TOOLS.flatMap((tool) => (tool.kind === "read" && tool.views ? [tool.name] : [])));
    for (const [tool, args] of calls) {
      const { text, structured } = await call(client(), tool, views.has(tool) ? { ...args, view: "full" } : args);
      const label = `${tool} ${JSON.stringify(args).slice(0, 60)}`;
      expect([label, text.length]).toEqual([label, Math.min(text.length, maxChars)]);
      const [header = ""] = text.split("\n");
      expect([label, header.startsWith(`Charged ${structured.credits.charged} credit`)]).toEqual([label, true]);
      if (structured.next_token) expect(header).toContain(`next_token "${structured.next_token}"`);
      sizes[label] = text.length;
    }
    const largest = Object.entries(sizes)
      .sort(([, a], [, b]) => b - a)
      .slice(0, 5);
    console.log(
      `the largest results within ${maxChars}, in characters: ${JSON.stringify(Object.fromEntries(largest))}`,
    );
  });

  test("the busiest account fills a 5,000-id page, which is cut and continues without a gap or a repeat", async () => {
    const args = { id: examples.user_id, mode: "ids", limit: 5000 };
    const reference = keysOf((await call(clients.whole, "get_user_followers", args)).structured.data);
    expect(reference.length).toBe(5000);
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = { ...args, ...(token ? { next_token: token } : {}) };
      const { structured } = await call(clients.budgeted, "get_user_followers", page);
      if (pages === 0) expect(structured.shortened).toBe(true);
      seen.push(...keysOf(structured.data));
      token = structured.next_token;
      pages++;
    } while (token && seen.length < reference.length);
    expect(pages).toBeGreaterThan(1);
    expect(seen.slice(0, reference.length)).toEqual(reference);
  });

  test("100 ids in full view are cut to the first that fit, and the rest are named to ask again", async () => {
    for (const [tool, ids] of [
      ["get_users", userIds],
      ["get_tweets", await hundredTweetIds()],
    ] as const) {
      const { structured } = await call(clients.budgeted, tool, { ids, view: "full" });
      const asked = ids.split(",");
      const returned = keysOf(structured.data);
      const unread = structured.unread ?? [];
      // A hundred full tweets hold about twice the budget: the case under test. A hundred users may fit.
      if (tool === "get_tweets") expect(unread.length).toBeGreaterThan(0);
      // The returned ones are the first of those asked, in order, then the ones not read.
      expect([tool, [...returned, ...(structured.not_found ?? []), ...unread].sort()]).toEqual([
        tool,
        [...asked].sort(),
      ]);
      expect(asked.slice(asked.length - unread.length)).toEqual(unread);
      if (unread.length === 0) continue;
      const rest = await call(clients.budgeted, tool, { ids: unread.join(","), view: "full" });
      expect(keysOf(rest.structured.data)[0]).toBe(unread[0]);
    }
  });
});
