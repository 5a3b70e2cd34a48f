// The monitor tools over both transports with the MCP SDK's client: the stdio server reaches the
// account's monitors too, and get_monitor_matches reads and charges no more matches than the smallest
// result budget holds, leaving the rest new for the next call.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { MIN_MCP_MAX_CHARS } from "@social/composition";
import { newMonitorId, newMonitorSecret } from "@social/core";
import { openDatabase, SqliteMonitors, SqliteStore } from "@social/store-sqlite";
import { type Connect, httpConnector, openTestWorld, stdioConnector, type TestWorld } from "./harness.ts";
import { structuredOf, textOf } from "./tool-results.ts";

interface MatchesData {
  matches: { seq: number; tweet: { id: string } }[];
  next_since: number;
}

let world: TestWorld;
let monitors: SqliteMonitors;
let posts: string[];

beforeAll(async () => {
  world = openTestWorld();
  const db = openDatabase(world.databaseUrl);
  monitors = new SqliteMonitors(db);
  const page = await new SqliteStore(db).timeline("1000000001", "tweets", { size: 20 });
  const more = await new SqliteStore(db).timeline("1000000002", "tweets", { size: 20 });
  posts = [...(page?.items ?? []), ...(more?.items ?? [])].map((tweet) => tweet.id);
});
afterAll(() => world.close());

/** A pull monitor of the account with `matches` recorded, as the importer's matcher records them. */
async function monitorWith(account: { accountId: string; keyId: string }, matches: readonly string[]) {
  const id = newMonitorId();
  const created = await monitors.create(
    { id, ...account, query: "coffee", delivery: { type: "pull" }, secret: newMonitorSecret(), now: Date.now() },
    100,
  );
  if (!created.ok) throw new Error("monitor not created");
  await monitors.recordMatches(
    [],
    matches.map((tweetId) => ({ monitorId: id, tweetId })),
    Date.now(),
  );
  return id;
}

describe.each([
  ["stdio", stdioConnector],
  ["http", httpConnector],
] as [string, (world: TestWorld) => Connect][])("over %s", (_transport, connector) => {
  it("cuts get_monitor_matches to the result budget before it charges, and goes on from there", async () => {
    const account = world.account(100);
    const monitorId = await monitorWith(account, posts);
    const connection = await connector(world)({ key: account.key, maxChars: MIN_MCP_MAX_CHARS, toolsets: "monitors" });
    try {
      const call = async (args: Record<string, unknown>) =>
        (await connection.client.callTool({ name: "get_monitor_matches", arguments: args })) as CallToolResult;
      const first = await call({ monitor_id: monitorId });
      const served = (structuredOf(first).data as MatchesData).matches.length;
      expect(served).toBeGreaterThan(0);
      expect(served).toBeLessThan(posts.length);
      expect(textOf(first).length).toBeLessThanOrEqual(MIN_MCP_MAX_CHARS);
      expect(structuredOf(first).credits).toEqual({ charged: served, remaining: 100 - served });
      const next = structuredOf(await call({ monitor_id: monitorId }));
      expect((next.data as MatchesData).matches[0]?.seq).toBe(served + 1);
      expect(await world.balance(account.accountId)).toBe(100 - served - next.credits.charged);
    } finally {
      await connection.close();
    }
  });
});
