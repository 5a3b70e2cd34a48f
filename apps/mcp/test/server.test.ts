import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Services, UserLookup } from "@social/core";
import { openDatabase, SqliteStore, sqliteServices } from "@social/store-sqlite";
import { createMcpServer } from "../src/server.ts";
import { selectTools } from "../src/tools.ts";
import { openTestWorld, type TestWorld } from "./harness.ts";

// Real servers, a real world build and spawned processes: slow on a busy two-core machine, never stuck.
setDefaultTimeout(30_000);

let world: TestWorld;
let services: Services;
beforeAll(async () => {
  world = openTestWorld();
  services = await sqliteServices(openDatabase(world.databaseUrl), { rateLimit: { ratePerSecond: 0, burst: 1 } });
});
afterAll(() => world.close());

async function connect(serverServices: Services, apiKey: string, logged: unknown[] = []) {
  const server = createMcpServer(serverServices, {
    apiKey,
    selection: selectTools(),
    logError: (message, error) => logged.push(message, error),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "social-mcp-test", version: "1.0.0" });
  await client.connect(clientSide);
  return client;
}

function onlyText(result: CallToolResult): string {
  expect(result.isError).toBe(true);
  const [block] = result.content;
  return block?.type === "text" ? block.text : "";
}

test("a key revoked mid-session: calls fail with a result saying to reconnect, uncharged", async () => {
  const caller = world.account();
  const client = await connect(services, caller.key);
  expect((await client.callTool({ name: "get_trends", arguments: {} })).isError ?? false).toBe(false);
  world.revoke(caller.keyId);
  const message = onlyText((await client.callTool({ name: "get_trends", arguments: {} })) as CallToolResult);
  expect(message).toContain("This API key has been revoked");
  expect(message).toContain("Reconnect with an active API key");
  expect(await world.balance(caller.accountId)).toBe(999);
  await client.close();
});

test("a database outage: the agent gets an uncharged service_unavailable without internals", async () => {
  const caller = world.account();
  const db = openDatabase(world.databaseUrl);
  const client = await connect(await sqliteServices(db, { rateLimit: { ratePerSecond: 0, burst: 1 } }), caller.key);
  db.close();
  const message = onlyText((await client.callTool({ name: "get_user", arguments: { id: "1" } })) as CallToolResult);
  expect(message).toContain("The service is temporarily unavailable");
  expect(message).toContain("Try again in a moment. Nothing was charged. (service_unavailable, request req_");
  expect(message).not.toMatch(/sqlite|closed/i);
  expect(await world.balance(caller.accountId)).toBe(1000);
  await client.close();
});

test("a bug in a read is logged, and the agent gets an uncharged internal_error without internals", async () => {
  const caller = world.account();
  class BuggyStore extends SqliteStore {
    override async usersByIds(): Promise<UserLookup[]> {
      throw new TypeError("Cannot read properties of undefined (reading 'doc')");
    }
  }
  const db = openDatabase(world.databaseUrl);
  const logged: unknown[] = [];
  const client = await connect({ ...services, store: new BuggyStore(db) }, caller.key, logged);
  const message = onlyText((await client.callTool({ name: "get_user", arguments: { id: "1" } })) as CallToolResult);
  expect(message).toContain("internal_error");
  expect(message).toContain("Try again in a moment");
  expect(message).not.toContain("reading 'doc'");
  expect(String(logged[0])).toContain("get_user failed (request req_");
  expect(String(logged[1])).toContain("reading 'doc'");
  expect(await world.balance(caller.accountId)).toBe(1000);
  await client.close();
  db.close();
});
