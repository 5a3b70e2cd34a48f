// openBackend picks the adapter from DATABASE_URL and gives the same Backend on each: both migrate as
// they open, share stored secrets between processes, build the world, and report an unreachable
// PostgreSQL in one sentence that names the server and never its password.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalRateLimiter, TOKEN_SECRET_SETTING } from "@social/core";
import { DEFAULT_WORLD } from "@social/fixtures";
import { type PostgresServer, startPostgres } from "@social/store-postgres/testing";
import { backendServices, describeDatabase, openBackend } from "../src/index.ts";

let postgres: PostgresServer;
let dir: string;
beforeAll(async () => {
  postgres = await startPostgres();
  dir = mkdtempSync(join(tmpdir(), "social-backend-"));
});
afterAll(() => {
  postgres.stop();
  rmSync(dir, { recursive: true, force: true });
});

let databases = 0;
/** A new, empty database on each call. */
const urls: Record<"sqlite" | "postgres", () => Promise<string>> = {
  sqlite: async () => `file:${join(dir, `social_${++databases}.db`)}`,
  postgres: () => postgres.createDatabase(`backend_${++databases}`),
};

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  test("two processes' backends agree on the stored secrets, and build one world", async () => {
    const url = await urls[kind]();
    const first = await openBackend(url, { max: 2 });
    const second = await openBackend(url, { max: 2 });
    try {
      expect([first.kind, second.kind]).toEqual([kind, kind]);
      expect(await first.hasWorld()).toBe(false);
      const secret = await first.secret("session_secret");
      expect(secret).toMatch(/^[0-9a-f]{64}$/);
      expect(await second.secret("session_secret")).toBe(secret);
      let reported = 0;
      const meta = await first.buildWorld({ ...DEFAULT_WORLD, seed: "backend", tweets: 1000 }, ({ tweets }) => {
        reported = tweets;
      });
      expect(meta.counts.tweet).toBe(1000);
      expect(reported).toBe(1000);
      expect(await second.hasWorld()).toBe(true);
      const { account } = await first.accounts.openAccount("backend", 5);
      expect(await second.ledger.balance(account.id)).toBe(5);
    } finally {
      await first.close();
      await second.close();
    }
  }, 60_000);

  test("backendServices signs tokens with the stored secret unless one is configured", async () => {
    const url = await urls[kind]();
    const backend = await openBackend(url, { max: 2 });
    try {
      const limiter = new LocalRateLimiter({ ratePerSecond: 1, burst: 1 });
      const stored = await backend.secret(TOKEN_SECRET_SETTING);
      const sign = async (tokenSecret?: string) =>
        (await backendServices(backend, { tokenSecret, limiter })).tokens.sign("e", "q", ["1"]);
      const [fromStore, fromSameSecret, configured] = await Promise.all([sign(), sign(stored), sign("c".repeat(64))]);
      expect(fromStore).toBe(fromSameSecret);
      expect(configured).not.toBe(fromStore);
    } finally {
      await backend.close();
    }
  });
});

describe("DATABASE_URL", () => {
  test("postgres:// and postgresql:// both select PostgreSQL", async () => {
    const url = await postgres.createDatabase("schemes");
    for (const scheme of ["postgres:", "postgresql:"]) {
      const backend = await openBackend(url.replace(/^postgres:/, scheme), { max: 1 });
      expect(backend.kind).toBe("postgres");
      await backend.close();
    }
  });

  test("an unreachable PostgreSQL is one sentence naming the server, not the password", async () => {
    const error = await openBackend("postgres://app:hunter2@127.0.0.1:1/social").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toStartWith("PostgreSQL 127.0.0.1:1/social cannot be reached");
    expect((error as Error).message).not.toContain("hunter2");
  });

  test("a scheme no adapter serves is refused before anything is opened", async () => {
    await expect(openBackend("mysql://root@localhost/social")).rejects.toThrow("no adapter serves");
  });

  test("describeDatabase never shows a password", () => {
    expect(describeDatabase("postgresql://u:secret@db.example:6543/social")).toBe("PostgreSQL db.example:6543/social");
    expect(describeDatabase("postgres://u@db.example/social")).toBe("PostgreSQL db.example:5432/social");
    expect(describeDatabase("file:data/social.db")).toBe("SQLite data/social.db");
    expect(describeDatabase(":memory:")).toBe("SQLite :memory:");
  });
});
