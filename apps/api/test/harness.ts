// Real servers for tests, on either adapter. SQLite: the default fixture world is built once per test
// process into a template file, and each server gets its own copy. PostgreSQL: one real server per test
// process (started on first use), the world built once into a template database, and each test server
// gets its own database cloned from it (CREATE DATABASE … TEMPLATE copies files: far faster than a
// build). Tests reach the server's state only through the ports, so one test body runs on both.

import type { Database } from "bun:sqlite";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Backend,
  type BillingSettings,
  type OidcSettings,
  openBackend,
  type WorldSource,
} from "@social/composition";
import { DEFAULT_RATE_LIMIT, type RateLimitConfig } from "@social/core";
import { DEFAULT_WORLD } from "@social/fixtures";
import { type PostgresServer, startPostgres } from "@social/store-postgres/testing";
import { buildWorld, openDatabase } from "@social/store-sqlite";
import { afterProcessExit, freePort } from "@social/testing";
import { type RunningServer, startServer } from "../src/server.ts";

export { freePort };

export type Adapter = "sqlite" | "postgres";

/** Every adapter a suite that should hold on both runs on (with describe.each). */
export const ADAPTERS: readonly Adapter[] = ["sqlite", "postgres"];

let template: string | undefined;

/** The default fixture world, built once per process; copy it, never open it for writing. */
export function worldTemplate(): string {
  if (!template) {
    const dir = mkdtempSync(join(tmpdir(), "social-api-world-"));
    afterProcessExit(`rm -rf '${dir}'`);
    template = join(dir, "world.db");
    const db = openDatabase(template);
    buildWorld(db, DEFAULT_WORLD);
    db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    db.close();
  }
  return template;
}

let postgres: Promise<PostgresServer> | undefined;
let postgresTemplate: Promise<string> | undefined;
let postgresDatabases = 0;

/** The test process's PostgreSQL server, started on first use; it goes when the process does. */
function postgresServer(): Promise<PostgresServer> {
  postgres ??= startPostgres();
  return postgres;
}

/** A new database holding the default fixture world, cloned from a template built once per process. */
async function postgresWorld(): Promise<string> {
  const server = await postgresServer();
  postgresTemplate ??= (async () => {
    const name = "world_template";
    const backend = await openBackend(await server.createDatabase(name), { max: 4 });
    try {
      await backend.buildWorld(DEFAULT_WORLD);
    } finally {
      // A template must have no connections when it is cloned.
      await backend.close();
    }
    return name;
  })();
  return server.createDatabase(`test_${++postgresDatabases}`, { template: await postgresTemplate });
}

export interface TestServer extends RunningServer {
  adapter: Adapter;
  /** The server's DATABASE_URL: a file in `dir` on SQLite, a database of its own on PostgreSQL. */
  databaseUrl: string;
  /** The test's own handle on the server's database, as a second process would hold one. */
  backend: Backend;
  /** A raw connection to the server's file, for the tests of SQLite's own behaviour; none on PostgreSQL. */
  sqlite(): Database;
  dir: string;
  logs: string[];
  /** The log line of a request, parsed: it is written once the answer has gone out, so it is waited for. */
  logLine(requestId: string | null): Promise<Record<string, unknown> | undefined>;
  /** A new account with `credits` and an active key for it. */
  account(credits?: number): Promise<{ accountId: string; key: string; keyId: string }>;
  /**
   * Revokes the key as the operator CLI would, from a process of its own, and waits until the server
   * refuses it: on PostgreSQL the server hears of it by a notification, within its key cache's second.
   */
  revoke(keyId: string): Promise<void>;
  balance(accountId: string): Promise<number>;
  /** Credits charged to the account, from its usage records (today's and yesterday's: a test may span midnight). */
  usageTotal(accountId: string): Promise<number>;
  get(path: string, key?: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export async function startTestServer(
  options: {
    adapter?: Adapter;
    rateLimit?: RateLimitConfig;
    oidc?: OidcSettings;
    /** BILLING_URL, BILLING_CONTACT and BILLING_PLANS as read; none when absent. */
    billing?: BillingSettings;
    requestLogDays?: number;
    /** MONITOR_MATCH_DAYS. */
    monitorMatchDays?: number;
    /** WORLD: the default fixture world (cloned), or an empty database the server starts with WORLD=empty. */
    world?: WorldSource;
    /** A second server on this one's database (as another worker would be), instead of a database of its own. */
    sharing?: TestServer;
    /** MONITOR_ALLOW_PRIVATE: the tests' webhook receivers listen on loopback. */
    allowPrivateWebhooks?: boolean;
    /** MONITOR_RETRY_BASE_MS. */
    webhookRetryBaseMs?: number;
    /** The time the server's monitor deliveries go by. */
    clock?: () => number;
  } = {},
): Promise<TestServer> {
  const adapter = options.sharing?.adapter ?? options.adapter ?? "sqlite";
  const world = options.world ?? "generated";
  const dir = mkdtempSync(join(tmpdir(), "social-api-test-"));
  let databaseUrl: string;
  if (options.sharing) {
    databaseUrl = options.sharing.databaseUrl;
  } else if (adapter === "postgres") {
    databaseUrl =
      world === "empty"
        ? await (await postgresServer()).createDatabase(`test_${++postgresDatabases}`)
        : await postgresWorld();
  } else {
    databaseUrl = join(dir, "social.db");
    if (world === "generated") copyFileSync(worldTemplate(), databaseUrl);
  }
  const port = await freePort();
  const logs: string[] = [];
  const server = await startServer(
    {
      host: "127.0.0.1",
      port,
      databaseUrl,
      rateLimit: options.rateLimit ?? { ...DEFAULT_RATE_LIMIT, ratePerSecond: 0 },
      publicUrl: `http://127.0.0.1:${port}`,
      world,
      ...(options.oidc ? { oidc: options.oidc } : {}),
      ...(options.billing ? { billing: options.billing } : {}),
      ...(options.requestLogDays === undefined ? {} : { requestLogDays: options.requestLogDays }),
      ...(options.monitorMatchDays === undefined ? {} : { monitorMatchDays: options.monitorMatchDays }),
      ...(options.allowPrivateWebhooks === undefined ? {} : { allowPrivateWebhooks: options.allowPrivateWebhooks }),
      ...(options.webhookRetryBaseMs === undefined ? {} : { webhookRetryBaseMs: options.webhookRetryBaseMs }),
    },
    { log: (line) => logs.push(line), ...(options.clock ? { clock: options.clock } : {}) },
  );
  const backend = await openBackend(databaseUrl, { max: 4 });
  let sqlite: Database | undefined;
  /** The keys account() made, by id: revoke() asks the server with the key until it is refused. */
  const secrets = new Map<string, string>();
  // A test may stop the server itself (to read the books once nothing is in flight); close() then does not again.
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= server.stop();
    return stopped;
  };
  return {
    ...server,
    stop,
    adapter,
    databaseUrl,
    backend,
    dir,
    logs,
    sqlite() {
      if (adapter !== "sqlite") throw new Error("sqlite(): this test server runs on PostgreSQL");
      sqlite ??= openDatabase(databaseUrl);
      return sqlite;
    },
    async logLine(requestId) {
      const find = () =>
        logs.map((line) => JSON.parse(line) as Record<string, unknown>).find((entry) => entry.id === requestId);
      for (let attempt = 0; attempt < 100 && !find(); attempt++) await Bun.sleep(10);
      return find();
    },
    async account(credits = 1000) {
      const { account, key } = await backend.accounts.openAccount("test", credits);
      secrets.set(key.keyId, key.key);
      return { accountId: account.id, key: key.key, keyId: key.keyId };
    },
    async revoke(keyId) {
      const key = secrets.get(keyId);
      if (key === undefined) throw new Error(`revoke(): ${keyId} is not a key this harness made`);
      await backend.accounts.revokeKey(keyId);
      for (let waited = 0; waited < 2000; waited += 10) {
        // The free account read: the wait charges nothing.
        const answer = await fetch(`${server.url}/v1/account`, { headers: { authorization: `Bearer ${key}` } });
        if (answer.status === 401) return;
        await Bun.sleep(10);
      }
      throw new Error(`the server still accepts revoked key ${keyId} after 2 s`);
    },
    balance(accountId) {
      return backend.ledger.balance(accountId);
    },
    async usageTotal(accountId) {
      const days = await backend.accounts.dailyUsage(accountId, 2);
      return days.reduce((total, day) => total + day.credits, 0);
    },
    get(path, key, init = {}) {
      const headers = new Headers(init.headers);
      if (key) headers.set("authorization", `Bearer ${key}`);
      return fetch(`${server.url}${path}`, { ...init, headers });
    },
    async close() {
      await stop();
      await backend.close();
      sqlite?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The ids of a /v1 read through every page, in order, read with `key`; every page must be a 200. */
export async function walkV1(server: TestServer, path: string, key: string): Promise<string[]> {
  const ids: string[] = [];
  let token: string | undefined;
  do {
    const separator = path.includes("?") ? "&" : "?";
    const response = await server.get(token ? `${path}${separator}next_token=${token}` : path, key);
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    const body = (await response.json()) as { data: { id: string }[]; meta: { pagination?: { next_token: string } } };
    ids.push(...body.data.map((item) => item.id));
    token = body.meta.pagination?.next_token;
  } while (token);
  return ids;
}
