// Real servers for tests: the default fixture world is built once per test process into a template
// SQLite file, and each server gets its own copy on a free loopback port.

import type { Database } from "bun:sqlite";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_RATE_LIMIT, type RateLimitConfig } from "@social/core";
import { DEFAULT_WORLD } from "@social/fixtures";
import { buildWorld, createAccount, createKey, openDatabase, revokeKey } from "@social/store-sqlite";
import type { OidcSettings } from "../src/dashboard/oidc.ts";
import { type RunningServer, startServer } from "../src/server.ts";

let template: string | undefined;

/** The default fixture world, built once per process; copy it, never open it for writing. */
export function worldTemplate(): string {
  if (!template) {
    const dir = mkdtempSync(join(tmpdir(), "social-api-world-"));
    process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
    template = join(dir, "world.db");
    const db = openDatabase(template);
    buildWorld(db, DEFAULT_WORLD);
    db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    db.close();
  }
  return template;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

export interface TestServer extends RunningServer {
  db: Database;
  dir: string;
  logs: string[];
  /** The log line of a request, parsed: it is written once the answer has gone out, so it is waited for. */
  logLine(requestId: string | null): Promise<Record<string, unknown> | undefined>;
  /** A new account with `credits` and an active key for it. */
  account(credits?: number): { accountId: string; key: string; keyId: string };
  revoke(keyId: string): void;
  balance(accountId: string): number;
  usageTotal(accountId: string): number;
  get(path: string, key?: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export async function startTestServer(
  options: { rateLimit?: RateLimitConfig; oidc?: OidcSettings } = {},
): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), "social-api-test-"));
  const databaseUrl = join(dir, "social.db");
  copyFileSync(worldTemplate(), databaseUrl);
  const port = await freePort();
  const logs: string[] = [];
  const server = await startServer(
    {
      host: "127.0.0.1",
      port,
      databaseUrl,
      rateLimit: options.rateLimit ?? { ...DEFAULT_RATE_LIMIT, ratePerSecond: 0 },
      publicUrl: `http://127.0.0.1:${port}`,
      ...(options.oidc ? { oidc: options.oidc } : {}),
    },
    { log: (line) => logs.push(line) },
  );
  const db = openDatabase(databaseUrl);
  return {
    ...server,
    db,
    dir,
    logs,
    async logLine(requestId) {
      const find = () =>
        logs.map((line) => JSON.parse(line) as Record<string, unknown>).find((entry) => entry.id === requestId);
      for (let attempt = 0; attempt < 100 && !find(); attempt++) await Bun.sleep(10);
      return find();
    },
    account(credits = 1000) {
      const account = createAccount(db, "test", credits);
      const { key, keyId } = createKey(db, account.id, "test key");
      return { accountId: account.id, key, keyId };
    },
    revoke(keyId) {
      revokeKey(db, keyId);
    },
    balance(accountId) {
      return (db.query("SELECT balance FROM accounts WHERE id = ?").get(accountId) as { balance: number }).balance;
    },
    usageTotal(accountId) {
      return (
        db.query("SELECT COALESCE(SUM(credits), 0) AS total FROM usage WHERE account_id = ?").get(accountId) as {
          total: number;
        }
      ).total;
    },
    get(path, key, init = {}) {
      const headers = new Headers(init.headers);
      if (key) headers.set("authorization", `Bearer ${key}`);
      return fetch(`${server.url}${path}`, { ...init, headers });
    },
    async close() {
      await server.stop();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
