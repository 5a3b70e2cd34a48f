// The monitor tools on the API server's /mcp, driven by the MCP SDK's own client on both adapters:
// list_monitors is free and leaves secrets out, get_monitor_matches charges new matches as the poll
// does and reads paid ones again free; the request log lists its charge as it lists every MCP read, by
// the endpoint's /v1 path.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { calledPath } from "../src/dashboard/requests-page.ts";
import { ADAPTERS, startTestServer, type TestServer } from "./harness.ts";
import { createMonitor, recordMatches, send, worldTweetIds } from "./monitors.ts";

interface MatchesResult {
  data: { matches: { seq: number; tweet: Record<string, unknown> }[]; next_since: number; hold: unknown };
  credits: { charged: number; remaining: number };
}

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

describe.each(ADAPTERS)("on %s", (adapter) => {
  let server: TestServer;
  let posts: string[];
  beforeAll(async () => {
    server = await startTestServer({ adapter });
    posts = await worldTweetIds(server, 6);
  });
  afterAll(() => server.close());

  async function connect(key: string, query = "") {
    const client = new Client({ name: "monitors-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp${query}`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    });
    await client.connect(transport);
    return client;
  }

  it("lists the account's monitors free, without their secrets", async () => {
    const { accountId, key } = await server.account(10);
    const pull = await createMonitor(server, key, { name: "pull" });
    const hook = await createMonitor(server, key, { delivery: { type: "webhook", url: "https://hooks.example.com/" } });
    const client = await connect(key, "?toolsets=monitors");
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(["list_monitors", "get_monitor_matches", "get_credits"]);
      const result = (await client.callTool({ name: "list_monitors", arguments: {} })) as CallToolResult;
      const structured = result.structuredContent as { data: Record<string, unknown>[]; credits: unknown };
      expect(structured.data.map((monitor) => monitor.id)).toEqual([pull.id, hook.id]);
      expect(structured.data.every((monitor) => !("secret" in monitor))).toBe(true);
      expect(structured.credits).toEqual({ charged: 0, remaining: 10 });
      expect(textOf(result)).toStartWith("Free; 10 credits remaining.");
    } finally {
      await client.close();
    }
    expect(await server.usageTotal(accountId)).toBe(0);
  });

  it("gets new matches charged once, compact, and paid ones again free with since", async () => {
    const { accountId, key } = await server.account(100);
    const monitor = await createMonitor(server, key);
    await recordMatches(server, monitor.id, posts.slice(0, 3));
    const client = await connect(key);
    try {
      const call = async (args: Record<string, unknown>) =>
        (await client.callTool({ name: "get_monitor_matches", arguments: args })) as CallToolResult;
      const first = await call({ monitor_id: monitor.id });
      const structured = first.structuredContent as unknown as MatchesResult;
      expect(structured.credits).toEqual({ charged: 3, remaining: 97 });
      expect(structured.data.matches.map((match) => match.seq)).toEqual([1, 2, 3]);
      expect(structured.data.matches[0]?.tweet.id).toBe(posts[0]);
      // Compact, as every tool's tweets: no entities.
      expect(structured.data.matches[0]?.tweet).not.toHaveProperty("entities");
      expect(textOf(first)).toStartWith("Charged 3 credits; 97 remaining. 3 matches; next_since 3.");

      const none = (await call({ monitor_id: monitor.id })).structuredContent as unknown as MatchesResult;
      expect(none.data.matches).toEqual([]);
      expect(none.credits.charged).toBe(0);
      const again = (await call({ monitor_id: monitor.id, since: 1 })).structuredContent as unknown as MatchesResult;
      expect(again.data.matches.map((match) => match.seq)).toEqual([2, 3]);
      expect(again.credits.charged).toBe(0);

      const unknown = await call({ monitor_id: "mon_0123456789abcdef" });
      expect(unknown.isError).toBe(true);
      expect(textOf(unknown)).toContain("Nothing was charged. (endpoint_not_found");
      const bad = await call({ monitor_id: monitor.id, since: -2 });
      expect(textOf(bad)).toContain("`since` must be a match's seq");
    } finally {
      await client.close();
    }
    // The HTTP poll sees the same cursor: nothing new since the tool's read.
    const poll = await send<{ matches: unknown[] }>(server, "GET", `/v1/monitors/${monitor.id}/matches`, key);
    expect(poll.body.data.matches).toEqual([]);
    expect(await server.usageTotal(accountId)).toBe(3);
    const log = await server.backend.accounts.requestLog(accountId, { since: 0, status: "all", limit: 10 });
    const charges = log.entries.filter((entry) => entry.credits > 0);
    expect(charges.map((entry) => [entry.endpoint, entry.call, calledPath(entry)])).toEqual([
      ["monitors.matches", null, "/v1/monitors/{id}/matches"],
    ]);
  });
});
