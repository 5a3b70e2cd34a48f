import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { openBackend } from "@social/composition";
import { startPostgres } from "@social/store-postgres/testing";
import { createAccount, createKey, openDatabase } from "@social/store-sqlite";
import { toolSuite } from "./conformance.ts";
import { examples } from "./examples.ts";
import {
  type ConnectOptions,
  openTestWorld,
  STDIO_ENTRY,
  stdioConnector,
  stdioEnvironment,
  type TestWorld,
} from "./harness.ts";

// Real servers, a real world build and spawned processes: slow on a busy two-core machine, never stuck.
setDefaultTimeout(30_000);

let world: TestWorld;
beforeAll(() => {
  world = openTestWorld();
});
afterAll(() => world.close());

toolSuite(
  "stdio",
  () => world,
  (options) => stdioConnector(world)(options),
);

/** Starts the binary without a client: a connection that must fail does so before any message. */
function startBinary(options: Partial<ConnectOptions>) {
  const child = Bun.spawnSync([process.execPath, STDIO_ENTRY], {
    env: stdioEnvironment(world, options),
    stdin: "ignore",
    timeout: 10_000,
  });
  return { exitCode: child.exitCode, stdout: child.stdout.toString(), stderr: child.stderr.toString() };
}

describe("stdio: the connection fails at start", () => {
  test("without SOCIAL_API_KEY", () => {
    const run = startBinary({});
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain("Missing API key: set the SOCIAL_API_KEY environment variable");
    expect(run.stdout).toBe("");
  });

  test("with a key that does not exist", () => {
    const run = startBinary({ key: "sk_live_00000000000000000000000000000000" });
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain("Invalid API key");
    expect(run.stdout).toBe("");
  });

  test("with a revoked key", () => {
    const revoked = world.account();
    world.revoke(revoked.keyId);
    const run = startBinary({ key: revoked.key });
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain("This API key has been revoked");
    expect(run.stdout).toBe("");
  });

  test("on a database file that does not exist", () => {
    const run = Bun.spawnSync([process.execPath, STDIO_ENTRY], {
      env: { ...stdioEnvironment(world, { key: world.account().key }), DATABASE_URL: "file:/nonexistent/social.db" },
      stdin: "ignore",
      timeout: 10_000,
    });
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr.toString()).toContain("no database at /nonexistent/social.db");
  });

  test("on a PostgreSQL that cannot be reached: one line naming it, exit 1", () => {
    const run = Bun.spawnSync([process.execPath, STDIO_ENTRY], {
      env: {
        ...stdioEnvironment(world, { key: world.account().key }),
        DATABASE_URL: "postgres://app:hunter2@127.0.0.1:1/social",
      },
      stdin: "ignore",
      timeout: 10_000,
    });
    expect(run.exitCode).toBe(1);
    const lines = run.stderr.toString().trim().split("\n");
    expect(lines).toEqual([expect.stringContaining("PostgreSQL 127.0.0.1:1/social cannot be reached")]);
    expect(lines[0]).not.toContain("hunter2");
    expect(run.stdout.toString()).toBe("");
  });

  test("with an unknown toolset", () => {
    const run = startBinary({ key: world.account().key, toolsets: "search,dms" });
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain("Unknown toolset dms: choose from search, users, graph");
  });

  test("with an unknown tool in SOCIAL_TOOLS", () => {
    const run = startBinary({ key: world.account().key, tools: "get_user,post_tweet" });
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain("Unknown tool post_tweet: choose from search_recent_tweets");
  });

  test("with a TOKEN_SECRET too short: the variable named, as the HTTP server names it", () => {
    const run = Bun.spawnSync([process.execPath, STDIO_ENTRY], {
      env: { ...stdioEnvironment(world, { key: world.account().key }), TOKEN_SECRET: "short" },
      stdin: "ignore",
      timeout: 10_000,
    });
    expect(run.exitCode).toBe(1);
    expect(run.stderr.toString().trim()).toBe(
      "social-data-api MCP server: TOKEN_SECRET must be at least 32 characters (or unset: one is generated)",
    );
    expect(run.stdout.toString()).toBe("");
  });

  test("with a SOCIAL_MCP_MAX_CHARS too small to hold a page", () => {
    const run = startBinary({ key: world.account().key, maxChars: 100 });
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain("SOCIAL_MCP_MAX_CHARS must be a whole number from 4000 to 1000000, not 100");
  });
});

/** A stdio server on `databaseUrl`, whose only content is `key`'s account: the first call builds the world. */
async function firstCall(databaseUrl: string, key: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [STDIO_ENTRY],
    env: { ...getDefaultEnvironment(), DATABASE_URL: databaseUrl, SOCIAL_API_KEY: key, SOCIAL_TOOLSETS: "users" },
    stderr: "pipe",
  });
  const client = new Client({ name: "social-mcp-test", version: "1.0.0" });
  try {
    await client.connect(transport);
    const result = await client.callTool({ name: "get_user_by_username", arguments: { username: examples.username } });
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toMatchObject({ data: { id: examples.user_id }, credits: { charged: 1 } });
  } finally {
    await client.close();
  }
}

test("stdio: on a database that has keys but no world yet, the first start builds the default world", async () => {
  const dir = mkdtempSync(join(tmpdir(), "social-mcp-empty-"));
  const databaseUrl = `file:${join(dir, "social.db")}`;
  const db = openDatabase(databaseUrl);
  const { key } = createKey(db, createAccount(db, "cli only").id, "key");
  db.close();
  try {
    await firstCall(databaseUrl, key);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("stdio: on an empty PostgreSQL database, the first start migrates, builds the world and answers", async () => {
  const postgres = await startPostgres();
  try {
    const databaseUrl = await postgres.createDatabase("mcp_first_start");
    const backend = await openBackend(databaseUrl, { max: 1 });
    const { key } = (await backend.accounts.openAccount("cli only")).key;
    await backend.close();
    await firstCall(databaseUrl, key);
    // A client that just closes stdin ends the server, whose pool would otherwise keep it alive.
    const server = Bun.spawn([process.execPath, STDIO_ENTRY], {
      env: { ...getDefaultEnvironment(), DATABASE_URL: databaseUrl, SOCIAL_API_KEY: key },
      stdin: "pipe",
      stdout: "ignore",
      stderr: "pipe",
    });
    const started = new Response(server.stderr).text();
    await Bun.sleep(1500);
    server.stdin.end();
    const exit = await Promise.race([server.exited, Bun.sleep(10_000).then(() => "still running")]);
    if (exit === "still running") server.kill();
    expect(exit).toBe(0);
    expect(await started).toContain("tools on stdio");
  } finally {
    postgres.stop();
  }
}, 60_000);
