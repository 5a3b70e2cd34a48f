// The API server's /mcp mount, driven by the MCP SDK's own client: the same key and ledger as /v1.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { catalogue } from "@social/core";
import { examples } from "@social/fixtures";
import { ADAPTERS, startTestServer, type TestServer } from "./harness.ts";

/** One JSON-RPC message POSTed as an MCP client would, without the SDK. */
function postMcp(baseUrl: string, key: string | undefined, message: unknown): Promise<Response> {
  return fetch(`${baseUrl}/mcp`, {
    method: "POST",
    headers: {
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify(message),
  });
}

const TOOLS_LIST = { jsonrpc: "2.0", id: 1, method: "tools/list" };

// On each adapter: the mount bills through the same ledger, whichever database holds it.
describe.each(ADAPTERS)("on %s", (adapter) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ adapter });
  });
  afterAll(() => server.close());

  async function connect(key: string, query = "") {
    const client = new Client({ name: "api-mount-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp${query}`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    });
    await client.connect(transport);
    return client;
  }

  describe("/mcp on the API server", () => {
    it("lists every catalogue read as a tool and bills a call like the HTTP request", async () => {
      const { accountId, key } = await server.account();
      const client = await connect(key);
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual(
          [...catalogue.map((e) => e.tool), "list_monitors", "get_monitor_matches", "get_credits"].sort(),
        );
        const result = await client.callTool({ name: "get_tweet", arguments: { id: examples.tweet_id } });
        const structured = result.structuredContent as {
          data: { id: string };
          credits: { charged: number; remaining: number };
        };
        expect(structured.data.id).toBe(examples.tweet_id);
        expect(structured.credits).toEqual({ charged: 1, remaining: 999 });
        const http = await server.get(`/v1/tweets/${examples.tweet_id}`, key);
        expect(((await http.json()) as { meta: { credits: unknown } }).meta.credits).toEqual({
          charged: 1,
          remaining: 998,
        });
        expect(await server.balance(accountId)).toBe(998);
      } finally {
        await client.close();
      }
    });

    it("selects toolsets with ?toolsets= and refuses a revoked key with 401 in the envelope", async () => {
      const { key, keyId } = await server.account();
      const client = await connect(key, "?toolsets=lists");
      const { tools } = await client.listTools();
      await client.close();
      expect(tools.map((t) => t.name).sort()).toEqual([
        "get_credits",
        "get_list_members",
        "get_list_subscribers",
        "get_list_tweets",
      ]);
      await server.revoke(keyId);
      const response = await postMcp(server.url, key, TOOLS_LIST);
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("revoked_api_key");
    });
  });

  describe("/mcp rate limits, as on /v1", () => {
    let limited: TestServer;
    const burst = 3;
    // Slow enough that no token comes back while a test runs, even on a busy machine.
    beforeAll(async () => {
      limited = await startTestServer({ adapter, rateLimit: { ratePerSecond: 0.01, burst } });
    });
    afterAll(() => limited.close());

    async function expectRateLimited(response: Response) {
      expect(response.status).toBe(429);
      const body = (await response.json()) as { error: { code: string; request_id: string } };
      expect(body.error.code).toBe("rate_limited");
      expect(body.error.request_id).toBe(response.headers.get("x-request-id") as string);
      expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(response.headers.get("x-rate-limit-remaining")).toBe("0");
    }

    it("every POST of a key counts: past the burst tools/list is 429 with Retry-After, uncharged", async () => {
      const { accountId, key } = await limited.account();
      const remaining = [];
      for (let i = 0; i < burst; i++) {
        const response = await postMcp(limited.url, key, TOOLS_LIST);
        expect(response.status).toBe(200);
        remaining.push(response.headers.get("x-rate-limit-remaining"));
      }
      expect(remaining).toEqual(["2", "1", "0"]);
      await expectRateLimited(await postMcp(limited.url, key, TOOLS_LIST));
      expect(await limited.balance(accountId)).toBe(1000);
      expect((await postMcp(limited.url, (await limited.account()).key, TOOLS_LIST)).status).toBe(200);
    });

    it("a tool call counts once; past the burst it is the tool error an agent reads, uncharged", async () => {
      const { accountId, key } = await limited.account();
      const getTweet = (id: number) => ({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "get_tweet", arguments: { id: examples.tweet_id } },
      });
      const remaining = [];
      for (let i = 0; i < burst; i++) {
        const response = await postMcp(limited.url, key, getTweet(i));
        const body = (await response.json()) as { result: { isError?: boolean } };
        expect(body.result.isError ?? false).toBe(false);
        remaining.push(response.headers.get("x-rate-limit-remaining"));
      }
      expect(remaining).toEqual(["2", "1", "0"]);
      const refused = await postMcp(limited.url, key, getTweet(burst));
      expect(refused.headers.get("x-rate-limit-remaining")).toBe("0");
      const body = (await refused.json()) as { result: { isError: boolean; content: { text: string }[] } };
      expect(body.result.isError).toBe(true);
      expect(body.result.content[0]?.text).toContain("rate_limited");
      expect(await limited.balance(accountId)).toBe(1000 - burst);
    });

    it("missing and invalid keys count per client address: 401 with rate headers, then 429", async () => {
      const keys = [undefined, "sk_live_nope", `sk_live_${"0".repeat(32)}`];
      for (const key of keys) {
        const response = await postMcp(limited.url, key, TOOLS_LIST);
        expect(response.status).toBe(401);
        expect(response.headers.get("x-rate-limit-limit")).toBe(String(burst));
      }
      await expectRateLimited(await postMcp(limited.url, "sk_live_nope", TOOLS_LIST));
      await expectRateLimited(await postMcp(limited.url, undefined, TOOLS_LIST));
      // A valid key has a bucket of its own.
      expect((await postMcp(limited.url, (await limited.account()).key, TOOLS_LIST)).status).toBe(200);
    });
  });
});
