// openRuntime, the start both servers share: the services on the database, a world only once the
// process is admitted to serve (the MCP server's key check), and nothing left open when it fails.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_RATE_LIMIT } from "@social/core";
import { openBackend, openRuntime, type RuntimeConfig } from "../src/index.ts";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "social-runtime-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
function emptyDatabase(overrides: Partial<RuntimeConfig> = {}): RuntimeConfig & { path: string } {
  const path = join(dir, `social_${++files}.db`);
  return { path, databaseUrl: `file:${path}`, world: "empty", rateLimit: DEFAULT_RATE_LIMIT, ...overrides };
}

const quiet = { warn: () => {} };

describe("openRuntime", () => {
  test("admits before it gives the database a world, then serves on it", async () => {
    const config = emptyDatabase();
    const observer = await openBackend(config.databaseUrl);
    let worldWhenAdmitted: boolean | undefined;
    const runtime = await openRuntime(config, {
      ...quiet,
      admit: async () => {
        worldWhenAdmitted = await observer.hasWorld();
      },
    });
    try {
      expect(worldWhenAdmitted).toBe(false);
      expect(await observer.hasWorld()).toBe(true);
      expect(await runtime.services.store.userByUsername("nobody")).toBeUndefined();
      expect(runtime.requestLogDays).toBe(30);
    } finally {
      await runtime.close();
      await observer.close();
    }
  });

  test("a refused admission builds no world and closes the database before it rejects", async () => {
    const config = emptyDatabase();
    const refusal = new Error("Invalid API key");
    const opened = openRuntime(config, {
      ...quiet,
      admit: async () => {
        throw refusal;
      },
    });
    await expect(opened).rejects.toBe(refusal);
    // SQLite removes the write-ahead log when the last connection to the file closes.
    expect(existsSync(`${config.path}-wal`)).toBe(false);
    const observer = await openBackend(config.databaseUrl);
    expect(await observer.hasWorld()).toBe(false);
    await observer.close();
  });

  test("REQUEST_LOG_DAYS=0 keeps no request log", async () => {
    const runtime = await openRuntime(emptyDatabase({ requestLogDays: 0 }), quiet);
    try {
      expect(runtime.requestLogDays).toBe(0);
      expect(runtime.services.requestLog).toBeUndefined();
    } finally {
      await runtime.close();
    }
  });
});
