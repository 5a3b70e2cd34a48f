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
import { toolResultSchema } from "../src/tools.ts";
import { EXAMPLE_ARGUMENTS, examples } from "./examples.ts";
import type { Connect, Connection, TestWorld } from "./harness.ts";

const validators = [new Ajv({ strict: true, allErrors: true }), new Ajv2020({ strict: true, allErrors: true })];
for (const ajv of validators) addFormats(ajv);

const endpointsByTool = new Map(catalogue.map((endpoint) => [endpoint.tool, endpoint]));

interface Structured {
  data: unknown;
  credits: { charged: number; remaining: number };
  next_token?: string;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function text(result: CallToolResult): string {
  const [block, ...others] = result.content;
  expect(others).toHaveLength(0);
  if (block?.type !== "text") throw new Error(`expected one text block, got ${JSON.stringify(result.content)}`);
  return block.text;
}

/** Checks a successful result against every schema it must meet and returns its structured content. */
function successOf(tool: Tool, result: CallToolResult): Structured {
  expect(result.isError ?? false).toBe(false);
  const structured = result.structuredContent;
  for (const ajv of validators) {
    const validate = ajv.compile(tool.outputSchema ?? {});
    expect([tool.name, validate(structured), validate.errors ?? []]).toEqual([tool.name, true, []]);
  }
  const endpoint = endpointsByTool.get(tool.name);
  if (!endpoint) throw new Error(`no endpoint for ${tool.name}`);
  const parsed = v.safeParse(toolResultSchema(endpoint), structured);
  expect([tool.name, parsed.issues ?? []]).toEqual([tool.name, []]);
  if (!parsed.success) throw new Error(`${tool.name}: structuredContent does not match its schema`);
  expect(v.is(endpoint.data, parsed.output.data)).toBe(true);
  // The text block is the same object, as compact JSON.
  expect(text(result)).toBe(JSON.stringify(structured));
  return parsed.output;
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

    test("lists all 32 tools, each with valid JSON Schemas and read-only annotations", () => {
      expect(tools.map((tool) => tool.name)).toEqual([...catalogue.map((endpoint) => endpoint.tool), "get_credits"]);
      for (const tool of tools) {
        for (const ajv of validators) {
          ajv.compile(tool.inputSchema);
          ajv.compile(tool.outputSchema ?? {});
        }
        expect(tool.outputSchema?.type).toBe("object");
        expect(tool.annotations).toMatchObject({
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false,
        });
        expect(tool.annotations?.title).toBeString();
      }
    });

    test("every tool answers the fixture examples, and the balance moves by exactly the credits reported", async () => {
      const before = await world().balance(rich.accountId);
      let charged = 0;
      let remaining = before;
      for (const tool of tools.filter((each) => endpointsByTool.has(each.name))) {
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
      expect(tooMany).toContain("invalid_request");
      expect(tooMany).toContain("limit must be an integer from 1 to 20");
      expect(tooMany).toContain("Change limit accordingly, then call search_recent_tweets again.");
      const crossField = errorText(
        await call(connection.client, "get_user_followers", { id: "1", mode: "profiles", limit: 5 }),
      );
      expect(crossField).toContain("limit is supported only with mode=ids");
      const missing = errorText(await call(connection.client, "get_user", {}));
      expect(missing).toContain("Change id");
      const unknown = errorText(await call(connection.client, "get_user", { id: "1", expand: true }));
      expect(unknown).toContain("expand");
      expect(await world().balance(rich.accountId)).toBe(before);
    });

    test("an unknown id is a not-found error result, uncharged", async () => {
      const before = await world().balance(rich.accountId);
      const message = errorText(await call(connection.client, "get_user", { id: "1" }));
      expect(message).toStartWith("No user with id 1. Check the id");
      expect(message).toContain("(endpoint_not_found, request req_");
      expect(message).toContain("Nothing was charged");
      expect(await world().balance(rich.accountId)).toBe(before);
    });

    test("a tool that does not exist is the protocol's invalid-params error", async () => {
      const failure = await call(connection.client, "post_tweet", {}).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(McpError);
      expect((failure as McpError).code).toBe(ErrorCode.InvalidParams);
      expect((failure as McpError).message).toContain("post_tweet");
    });
  });

  describe(`${transport}: limits`, () => {
    test("insufficient credits: an error result with the credits needed and remaining and the limit that fits, nothing charged", async () => {
      const poor = world().account(3);
      const connection = await connect({ key: poor.key });
      try {
        const query = examples.search_query;
        const message = errorText(await call(connection.client, "search_recent_tweets", { query, limit: 20 }));
        expect(message).toStartWith(
          "This call costs 21 credits and the account has 3 remaining. The same call with limit=2 fits the balance now. Add credits",
        );
        expect(message).toContain("insufficient_credits");
        expect(await world().balance(poor.accountId)).toBe(3);
      } finally {
        await connection.close();
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

    test("toolsets: only the chosen toolsets are listed and callable", async () => {
      const caller = world().account();
      const connection = await connect({ key: caller.key, toolsets: "search" });
      try {
        const { tools } = await connection.client.listTools();
        expect(tools.map((tool) => tool.name)).toEqual([
          "search_recent_tweets",
          "get_trends",
          "search_recent_tweets_enriched",
          "get_credits",
        ]);
        const outside = await call(connection.client, "get_user", { id: "1" }).catch((error: unknown) => error);
        expect(outside).toBeInstanceOf(McpError);
      } finally {
        await connection.close();
      }
    });
  });
}
