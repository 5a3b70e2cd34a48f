// The behaviour every transport must show, run once over stdio and once over Streamable HTTP: the
// tool list, every tool called with the fixture examples, paging, billing and the error results.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type CallToolResult, ErrorCode, McpError, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { catalogue } from "@social/core";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import * as v from "valibot";
import { ALL_TOOLS } from "../src/tools.ts";
import { type View, viewData } from "../src/views.ts";
import { EXAMPLE_ARGUMENTS, examples } from "./examples.ts";
import type { Connect, Connection, TestWorld } from "./harness.ts";
import { type Structured, textOf } from "./tool-results.ts";

// The output schemas name a result's members without describing each: strictRequired would flag that.
const strict = { strict: true, strictRequired: false, allErrors: true } as const;
const validators = [new Ajv(strict), new Ajv2020(strict)];
for (const ajv of validators) addFormats(ajv);

const readTools = new Map(ALL_TOOLS.flatMap((tool) => (tool.kind === "read" ? [[tool.name, tool] as const] : [])));

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

const text = textOf;

/** A success's text: a first line that leads with the charge, what is left and the next_token, then the data. */
function textParts(result: CallToolResult): { header: string; data: unknown } {
  const [header = "", ...rest] = text(result).split("\n");
  return { header, data: JSON.parse(rest.join("\n")) };
}

/** Checks a successful result against every schema it must meet and returns its structured content. */
function successOf(tool: Tool, result: CallToolResult, view: View = "compact"): Structured {
  expect(result.isError ?? false).toBe(false);
  const structured = result.structuredContent as unknown as Structured;
  for (const ajv of validators) {
    const validate = ajv.compile(tool.outputSchema ?? {});
    expect([tool.name, validate(structured), validate.errors ?? []]).toEqual([tool.name, true, []]);
  }
  const read = readTools.get(tool.name);
  if (!read) throw new Error(`no read tool ${tool.name}`);
  // In full view the data is the entry's, whole, but for id pages (plain ids).
  if (view === "full" && !isIdPage(structured.data)) expect(v.is(read.endpoint.data, structured.data)).toBe(true);
  const { header, data } = textParts(result);
  expect(header).toStartWith(`Charged ${structured.credits.charged} credit`);
  expect(header).toContain(`; ${structured.credits.remaining} remaining`);
  if (structured.next_token) expect(header).toContain(`next_token "${structured.next_token}"`);
  expect(data).toEqual(structured.data);
  return structured;
}

function isIdPage(data: unknown): boolean {
  return Array.isArray(data) && typeof data[0] === "string";
}

function errorText(result: CallToolResult): string {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  return text(result);
}

export function toolSuite(transport: string, world: () => TestWorld, connect: Connect): void {
  describe(`${transport}: tools`, () => {
    let rich: { accountId: string; key: string };
    let connection: Connection;
    let tools: Tool[];

    beforeAll(async () => {
      rich = world().account(100_000);
      connection = await connect({ key: rich.key });
      tools = (await connection.client.listTools()).tools;
    });
    afterAll(() => connection.close());

    test("lists every catalogue tool, the monitor tools and get_credits, each with valid JSON Schemas and read-only, open-world annotations", () => {
      expect(tools.map((tool) => tool.name)).toEqual([
        ...catalogue.map((endpoint) => endpoint.tool),
        "list_monitors",
        "get_monitor_matches",
        "get_credits",
      ]);
      for (const tool of tools) {
        for (const ajv of validators) {
          ajv.compile(tool.inputSchema);
          ajv.compile(tool.outputSchema ?? {});
        }
        expect(tool.outputSchema?.type).toBe("object");
        expect(tool.annotations).toEqual({ readOnlyHint: true, openWorldHint: true });
      }
    });

    test("every tool answers the fixture examples, and the balance moves by exactly the credits reported", async () => {
      const before = await world().balance(rich.accountId);
      let charged = 0;
      let remaining = before;
      for (const tool of tools.filter((each) => readTools.has(each.name))) {
        const toolArgs = EXAMPLE_ARGUMENTS[tool.name];
        if (!toolArgs) throw new Error(`no example arguments for ${tool.name}`);
        const result = successOf(tool, await call(connection.client, tool.name, toolArgs));
        // The examples are chosen to hold data for every read, so an empty answer is a broken example.
        const empty = Array.isArray(result.data) && result.data.length === 0;
        expect([tool.name, result.credits.charged >= 1, empty]).toEqual([tool.name, true, false]);
        expect(result.credits.remaining).toBe(remaining - result.credits.charged);
        charged += result.credits.charged;
        remaining = result.credits.remaining;
      }
      expect(await world().balance(rich.accountId)).toBe(before - charged);
    });

    test("in full view every field comes back; compact keeps the same items with fewer fields", async () => {
      let compactChars = 0;
      let fullChars = 0;
      for (const tool of tools.filter((each) => readTools.get(each.name)?.views)) {
        const read = readTools.get(tool.name);
        const toolArgs = EXAMPLE_ARGUMENTS[tool.name] ?? {};
        const full = successOf(tool, await call(connection.client, tool.name, { ...toolArgs, view: "full" }), "full");
        const compactResult = await call(connection.client, tool.name, toolArgs);
        const compact = successOf(tool, compactResult, "compact");
        // Only id pages are plain ids: profiles stay objects in either view.
        const profiles = Array.isArray(full.data) && (toolArgs as { mode?: string }).mode !== "ids";
        if (profiles) expect([tool.name, isIdPage(full.data)]).toEqual([tool.name, false]);
        if (isIdPage(full.data) || !read) continue;
        expect([tool.name, compact.data]).toEqual([tool.name, viewData(read.endpoint.data, full.data, "compact")]);
        compactChars += JSON.stringify(compact.data).length;
        fullChars += JSON.stringify(full.data).length;
      }
      console.log(
        `${transport}: the examples' data in compact view is ${compactChars} characters, in full ${fullChars} (${Math.round((100 * compactChars) / fullChars)}%)`,
      );
      expect(compactChars).toBeLessThan(fullChars / 2);
    });

    test("get_credits is free and says the balance and the key as the ledger has them", async () => {
      const tool = tools.find((each) => each.name === "get_credits");
      if (!tool) throw new Error("no get_credits tool");
      const before = await world().balance(rich.accountId);
      const result = await call(connection.client, "get_credits", {});
      expect(result.isError ?? false).toBe(false);
      for (const ajv of validators) expect(ajv.compile(tool.outputSchema ?? {})(result.structuredContent)).toBe(true);
      expect(result.structuredContent).toEqual({
        data: {
          account_id: rich.accountId,
          balance: before,
          key: {
            id: expect.stringMatching(/^key_/),
            name: expect.any(String),
            prefix: rich.key.slice(0, 12),
            limit: null,
            expires_at: null,
          },
        },
        credits: { charged: 0, remaining: before },
      });
      expect(await world().balance(rich.accountId)).toBe(before);
    });

    test("pages a search to its end with next_token, each page billed as reported", async () => {
      const before = await world().balance(rich.accountId);
      const search = tools.find((tool) => tool.name === "search_recent_tweets");
      if (!search) throw new Error("no search tool");
      const query = examples.search_query;
      const seen = new Set<string>();
      let pages = 0;
      let charged = 0;
      let nextToken: string | undefined;
      do {
        const args = { query, limit: 20, ...(nextToken ? { next_token: nextToken } : {}) };
        const page = successOf(search, await call(connection.client, "search_recent_tweets", args));
        const tweets = page.data as { id: string }[];
        for (const tweet of tweets) seen.add(tweet.id);
        expect(page.credits.charged).toBe(1 + tweets.length);
        charged += page.credits.charged;
        pages += 1;
        nextToken = page.next_token;
        if (nextToken) expect(tweets).toHaveLength(20);
      } while (nextToken && pages < 100);
      expect(nextToken).toBeUndefined();
      expect(seen.size).toBeGreaterThanOrEqual(60);
      expect(charged).toBe(pages + seen.size);
      expect(await world().balance(rich.accountId)).toBe(before - charged);
    });

    test("bad arguments are an error result naming the parameter, uncharged", async () => {
      const before = await world().balance(rich.accountId);
      const tooMany = errorText(await call(connection.client, "search_recent_tweets", { query: "a", limit: 21 }));
      expect(tooMany).toStartWith("Invalid arguments: `limit` must be an integer from 1 to 20.");
      expect(tooMany).toContain("Fix the arguments named above, then call search_recent_tweets again.");
      expect(tooMany).toContain("(invalid_request, request req_");
      const crossField = errorText(
        await call(connection.client, "get_user_followers", { id: "1", mode: "profiles", limit: 5 }),
      );
      expect(crossField).toContain("`limit` is supported only with mode=ids");
      const missing = errorText(await call(connection.client, "get_relationship", { source: "someone" }));
      expect(missing).toStartWith("Invalid arguments: `target` is required.");
      const unknown = errorText(await call(connection.client, "get_user", { id: "1", expand: true }));
      expect(unknown).toContain("`expand` is not a parameter of get_user");
      const view = errorText(await call(connection.client, "get_user", { id: "1", view: "tiny" }));
      expect(view).toContain("`view` must be one of compact, full");
      const noView = errorText(await call(connection.client, "get_trends", { view: "full" }));
      expect(noView).toContain("`view` is not a parameter of get_trends");
      expect(await world().balance(rich.accountId)).toBe(before);
    });

    test("not found says what was not found, uncharged", async () => {
      const before = await world().balance(rich.accountId);
      const user = errorText(await call(connection.client, "get_user", { id: "1" }));
      expect(user).toStartWith("No user with id 1. Check the id or username passed");
      expect(user).toContain("(endpoint_not_found, request req_");
      expect(user).toContain("Nothing was charged");
      const article = errorText(await call(connection.client, "get_tweet_article", { id: examples.tweet_id }));
      expect(article).toStartWith(`Tweet ${examples.tweet_id} has no article: only some tweets carry one.`);
      const noTweet = errorText(await call(connection.client, "get_tweet_article", { id: "1" }));
      expect(noTweet).toStartWith("No tweet with id 1.");
      const trends = errorText(await call(connection.client, "get_trends", { woeid: "424242" }));
      expect(trends).toStartWith("No trends for woeid 424242");
      expect(trends).toContain("woeid 1 is worldwide");
      expect(await world().balance(rich.accountId)).toBe(before);
    });

    test("get_users, get_tweets and get_users_by_usernames say which were not found", async () => {
      const users = await call(connection.client, "get_users", { ids: `${examples.user_id},1,2` });
      const found = successOf(tools.find((each) => each.name === "get_users") as Tool, users);
      expect(found.not_found).toEqual(["1", "2"]);
      expect(textParts(users).header).toContain("Not found: 1, 2.");
      const tweets = await call(connection.client, "get_tweets", { ids: "3" });
      expect((tweets.structuredContent as unknown as Structured).not_found).toEqual(["3"]);
      // Found whatever the case or an @, and a repeat in another case is asked once.
      const named = `@${examples.username.toUpperCase()},nobody_here,${examples.username},Nobody_Here_2`;
      const byNames = await call(connection.client, "get_users_by_usernames", { usernames: named });
      const result = successOf(tools.find((each) => each.name === "get_users_by_usernames") as Tool, byNames);
      expect((result.data as { username: string }[]).map((user) => user.username.toLowerCase())).toEqual([
        examples.username.toLowerCase(),
      ]);
      expect(result.not_found).toEqual(["nobody_here", "Nobody_Here_2"]);
      expect(result.credits.charged).toBe(2);
      expect(textParts(byNames).header).toContain("Not found: nobody_here, Nobody_Here_2.");
    });

    test("a handle may be written @name", async () => {
      const tool = tools.find((each) => each.name === "get_user_by_username") as Tool;
      const user = successOf(tool, await call(connection.client, tool.name, { username: `@${examples.username}` }));
      expect((user.data as { username: string }).username.toLowerCase()).toBe(examples.username.toLowerCase());
    });

    test("a next_token sent back with changed arguments is refused as such, uncharged", async () => {
      const before = await world().balance(rich.accountId);
      const first = await call(connection.client, "search_recent_tweets", { query: examples.search_query, limit: 5 });
      const token = (first.structuredContent as unknown as Structured).next_token;
      const charged = (first.structuredContent as unknown as Structured).credits.charged;
      const changed = errorText(
        await call(connection.client, "search_recent_tweets", { query: "another", limit: 5, next_token: token }),
      );
      expect(changed).toContain("`next_token` was returned for a request with other arguments");
      // limit may change: the next page comes back.
      const next = await call(connection.client, "search_recent_tweets", {
        query: examples.search_query,
        limit: 3,
        next_token: token,
      });
      expect(next.isError ?? false).toBe(false);
      const nextCharge = (next.structuredContent as unknown as Structured).credits.charged;
      expect(await world().balance(rich.accountId)).toBe(before - charged - nextCharge);
    });

    test("a tool that does not exist is the protocol's invalid-params error", async () => {
      const failure = await call(connection.client, "post_tweet", {}).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(McpError);
      expect((failure as McpError).code).toBe(ErrorCode.InvalidParams);
      expect((failure as McpError).message).toContain("post_tweet");
    });
  });

  describe(`${transport}: limits`, () => {
    test("insufficient credits: the credits needed and remaining and the smaller limit that fits, nothing charged", async () => {
      const poor = world().account(3);
      const connection = await connect({ key: poor.key });
      try {
        const query = examples.search_query;
        const message = errorText(await call(connection.client, "search_recent_tweets", { query, limit: 20 }));
        expect(message).toStartWith(
          "This call costs 21 credits and the account has 3 remaining. The same call with limit=2 fits the balance now. Add credits",
        );
        expect(message).toContain("or call again with limit=2.");
        expect(message).toContain("insufficient_credits");
        expect(await world().balance(poor.accountId)).toBe(3);
      } finally {
        await connection.close();
      }
    });

    test("insufficient credits on a flat-cost tool: 1 credit, and no smaller call suggested", async () => {
      const broke = world().account(0);
      const connection = await connect({ key: broke.key });
      try {
        const message = errorText(await call(connection.client, "get_tweet", { id: examples.tweet_id }));
        expect(message).toStartWith("This call costs 1 credit and the account has 0 remaining.");
        expect(message).not.toContain("limit");
        expect(message).not.toContain("fewer");
      } finally {
        await connection.close();
      }
    });

    test("a page larger than the output budget is cut, charged for what it holds, and its next_token loses and repeats nothing", async () => {
      const caller = world().account(100_000);
      const maxChars = 4_000;
      const small = await connect({ key: caller.key, maxChars });
      const roomy = await connect({ key: caller.key });
      try {
        const args = { id: examples.user_id, mode: "ids", limit: 5000 };
        const whole = (await call(roomy.client, "get_user_followers", args)).structuredContent as unknown as Structured;
        const everyone = whole.data as string[];
        expect(everyone.length).toBeGreaterThan(500);
        const seen: string[] = [];
        let token: string | undefined;
        let pages = 0;
        do {
          const result = await call(small.client, "get_user_followers", {
            ...args,
            ...(token ? { next_token: token } : {}),
          });
          expect(text(result).length).toBeLessThanOrEqual(maxChars);
          const page = result.structuredContent as unknown as Structured;
          const ids = page.data as string[];
          expect(page.credits.charged).toBe(1 + Math.ceil(ids.length / 50));
          if (page.next_token) {
            expect(page.shortened).toBe(true);
            expect(textParts(result).header).toContain(`Cut to fit ${maxChars} characters.`);
          }
          seen.push(...ids);
          token = page.next_token;
          pages += 1;
        } while (token && pages < 50);
        expect(pages).toBeGreaterThan(2);
        expect(seen).toEqual(everyone);
      } finally {
        await small.close();
        await roomy.close();
      }
    });

    test("rate limited: an error result that says how long to wait", async () => {
      const caller = world().account();
      const burst = 3;
      const connection = await connect({
        key: caller.key,
        rateLimit: { RATE_LIMIT_RPS: "0.5", RATE_LIMIT_BURST: String(burst) },
      });
      try {
        // Over HTTP connecting takes two of the burst's requests (initialize and its notification).
        const results = [];
        for (let i = 0; i <= burst; i++) results.push(await call(connection.client, "get_trends", {}));
        const served = results.findIndex((result) => result.isError);
        expect(served).toBeGreaterThan(0);
        const message = errorText(results[served] as CallToolResult);
        expect(message).toContain("rate_limited");
        expect(message).toMatch(/Wait \d+ seconds, then call get_trends again/);
        expect(await world().balance(caller.accountId)).toBe(1000 - served);
      } finally {
        await connection.close();
      }
    });

    test("toolsets and tools: only the chosen ones are listed and callable", async () => {
      const caller = world().account();
      const connection = await connect({ key: caller.key, toolsets: "search", tools: "get_tweet" });
      try {
        const { tools } = await connection.client.listTools();
        expect(tools.map((tool) => tool.name)).toEqual([
          "search_recent_tweets",
          "get_tweet",
          "get_trends",
          "search_recent_tweets_enriched",
          "count_recent_tweets",
          "get_credits",
        ]);
        // get_tweet_context is not held, so get_tweet's description no longer points to it.
        expect(tools.find((tool) => tool.name === "get_tweet")?.description).not.toContain("get_tweet_context");
        const outside = await call(connection.client, "get_user", { id: "1" }).catch((error: unknown) => error);
        expect(outside).toBeInstanceOf(McpError);
      } finally {
        await connection.close();
      }
    });
  });
}
