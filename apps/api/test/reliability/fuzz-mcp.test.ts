// Property-based fuzzing of the MCP tools through the SDK's own client on the API server's /mcp mount:
// random argument objects (hostile strings, wrong types, nesting, stray names) must come back as a
// tool result (isError, or a success the client checks against the outputSchema), never a protocol
// error or a 5xx; raw JSON-RPC garbage must not reach a 5xx; batches are refused whole before any tool
// runs; and only successes are charged.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { catalogue } from "@social/core";
import { exampleParams } from "@social/fixtures";
import fc from "fast-check";
import { MAX_BODY_BYTES } from "../../src/http/admission.ts";
import { startTestServer, type TestServer } from "../harness.ts";
import { FUZZ_RUNS, hostileValue } from "./hostile.ts";

let server: TestServer;
let account: { accountId: string; key: string };
let client: Client;
let reportedCharges = 0;

beforeAll(async () => {
  server = await startTestServer();
  account = await server.account(100_000_000);
  client = new Client({ name: "fuzz", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${account.key}` } },
    }),
  );
});
afterAll(async () => {
  await client.close();
  await server.close();
});

function postMcp(body: string): Promise<Response> {
  return fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${account.key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body,
    signal: AbortSignal.timeout(15_000),
  });
}

const argumentValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileValue },
  fc.integer(),
  fc.double(),
  fc.constantFrom(Number.MAX_SAFE_INTEGER + 2, -1, 0, 1e308, true, false, null),
  fc.jsonValue({ maxDepth: 3 }),
);

describe("MCP tool arguments", () => {
  for (const endpoint of catalogue) {
    it(`${endpoint.tool}: a tool result for any arguments, charged only on success`, async () => {
      const valid = exampleParams(endpoint);
      const names = [...Object.keys(valid), "next_token", "limit", "mode", "query", "id"];
      const args = fc.tuple(
        fc.boolean(),
        fc.dictionary(fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 10 })), argumentValue, {
          maxKeys: 5,
        }),
      );
      await fc.assert(
        fc.asyncProperty(args, async ([keepValid, hostile]) => {
          // Messages past the body limit are refused before MCP sees them (security.test.ts pins that).
          fc.pre(JSON.stringify(hostile).length < MAX_BODY_BYTES - 1024);
          const before = await server.balance(account.accountId);
          const result = await client.callTool(
            { name: endpoint.tool, arguments: keepValid ? { ...valid, ...hostile } : hostile },
            undefined,
            { timeout: 15_000 },
          );
          const charged = (result.structuredContent as { credits?: { charged: number } } | undefined)?.credits?.charged;
          if (result.isError) {
            expect(JSON.stringify(result.content)).toContain("Nothing was charged");
            expect(await server.balance(account.accountId)).toBe(before);
          } else {
            expect(typeof charged).toBe("number");
            expect(await server.balance(account.accountId)).toBe(before - (charged as number));
            reportedCharges += charged as number;
          }
        }),
        { numRuns: FUZZ_RUNS },
      );
    }, 60_000);
  }

  it("raw JSON-RPC garbage is answered below 500 and charges nothing", async () => {
    const before = await server.balance(account.accountId);
    const body = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
      fc.string({ maxLength: 200 }),
      fc
        .record({
          name: fc.oneof(fc.constantFrom(...catalogue.map((e) => e.tool)), fc.string()),
          arguments: fc.jsonValue(),
        })
        .map((params) => JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params })),
    );
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        const response = await postMcp(text);
        await response.text();
        expect(response.status).toBeLessThan(500);
      }),
      { numRuns: FUZZ_RUNS * 5 },
    );
    // Well-formed calls in the mix may succeed; every charge is then in the ledger, never more.
    expect((await server.balance(account.accountId)) + (await server.usageTotal(account.accountId))).toBe(100_000_000);
    expect(await server.balance(account.accountId)).toBeLessThanOrEqual(before);
  }, 60_000);

  it("malformed JSON is the JSON-RPC parse error", async () => {
    const response = await postMcp('{"jsonrpc": "2.0", "id": 1,');
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });

  it("the ledger holds exactly what the tool results reported", async () => {
    expect((await server.balance(account.accountId)) + (await server.usageTotal(account.accountId))).toBe(100_000_000);
    expect(reportedCharges).toBeGreaterThan(0);
  });
});

const toolCall = (endpoint: (typeof catalogue)[number], id: unknown) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: endpoint.tool, arguments: exampleParams(endpoint) },
});

/** A batch is refused whole, uncharged: the MCP revision of 2025-06-18 removed JSON-RPC batching. */
async function expectBatchRefused(batch: unknown[]) {
  const before = {
    balance: await server.balance(account.accountId),
    usage: await server.usageTotal(account.accountId),
  };
  const response = await postMcp(JSON.stringify(batch));
  expect(response.status).toBe(400);
  expect(response.headers.get("x-request-id")).toStartWith("req_");
  const body = (await response.json()) as { jsonrpc: string; error: { code: number; message: string }; id: unknown };
  expect(body).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 }, id: null });
  expect(body.error.message).toContain("batches are not supported");
  expect({
    balance: await server.balance(account.accountId),
    usage: await server.usageTotal(account.accountId),
  }).toEqual(before);
}

describe("JSON-RPC batches", () => {
  it("the hardening issue's batch, two calls sharing id 7, is refused and charges nothing", async () => {
    const byTool = (tool: string) => catalogue.find((endpoint) => endpoint.tool === tool) as (typeof catalogue)[number];
    await expectBatchRefused([toolCall(byTool("get_user"), 7), toolCall(byTool("search_recent_tweets"), 7)]);
  });

  it("any batch, with repeated or distinct ids, is refused before a tool runs", async () => {
    const message = fc.oneof(
      fc
        .tuple(fc.constantFrom(...catalogue), fc.oneof(fc.constantFrom(1, 7, "7"), fc.integer(), fc.string()))
        .map(([endpoint, id]) => toolCall(endpoint, id)),
      fc.constant({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
      fc.constant({ jsonrpc: "2.0", method: "notifications/initialized" }),
    );
    await fc.assert(fc.asyncProperty(fc.array(message, { maxLength: 6 }), expectBatchRefused), { numRuns: FUZZ_RUNS });
  }, 60_000);
});
