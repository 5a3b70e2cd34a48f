// The API server's /mcp mount, driven by the MCP SDK's own client: the same key and ledger as /v1.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { catalogue } from "@social/core";
import { examples } from "@social/fixtures";
import { startTestServer, type TestServer } from "./harness.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
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
    const { accountId, key } = server.account();
    const client = await connect(key);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(catalogue.map((e) => e.tool).sort());
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
      expect(server.balance(accountId)).toBe(998);
    } finally {
      await client.close();
    }
  });

  it("selects toolsets with ?toolsets= and refuses a revoked key with 401 in the envelope", async () => {
    const { key, keyId } = server.account();
    const client = await connect(key, "?toolsets=lists");
    const { tools } = await client.listTools();
    await client.close();
    expect(tools.map((t) => t.name).sort()).toEqual(["get_list_members", "get_list_subscribers", "get_list_tweets"]);
    server.revoke(keyId);
    const response = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("revoked_api_key");
  });
});
