// What the ledger conformance suite cannot ask of every adapter: that a batch is one PostgreSQL
// transaction, that a debit the server refuses fails alone, and that a server that goes away mid-load
// gives service_unavailable, uncharged, to a ledger that then recovers by itself when it returns.
import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { costOf } from "@social/conformance";
import { ApiError, answeringOutages, type UsageRecord } from "@social/core";
import { SQL } from "bun";
import { PostgresAccounts } from "../src/accounts/postgres-accounts.ts";
import { PostgresLedger } from "../src/ledger/postgres-ledger.ts";
import { isDatabaseOutage } from "../src/outage.ts";
import { type PostgresServer, startPostgres } from "../testing/pg-server.ts";
import { openPostgresFixture } from "./ledger-fixture.ts";

let server: PostgresServer;

beforeAll(async () => {
  server = await startPostgres();
});

afterAll(() => server.stop());

function usage(keyId: string, requestId: string, credits: number, endpoint = "/v1/search/recent"): UsageRecord {
  return { requestId, keyId, endpoint, credits };
}

async function outcome<T>(promise: Promise<T>): Promise<{ value: T } | { error: unknown }> {
  try {
    return { value: await promise };
  } catch (error) {
    return { error };
  }
}

function expectUnavailable(result: { error: unknown } | { value: unknown }): void {
  expect(result).toMatchObject({
    error: { code: "service_unavailable", status: 503, message: expect.stringContaining("retry") },
  });
  expect("error" in result && result.error).toBeInstanceOf(ApiError);
}

describe("group commit", () => {
  test("debits that arrive together are one transaction", async () => {
    const fixture = await openPostgresFixture(server);
    try {
      const accountId = await fixture.createAccount(1000);
      const { keyId } = await fixture.createKey(accountId);
      await Promise.all(
        Array.from({ length: 100 }, (_, i) => fixture.ledger.debit(accountId, usage(keyId, `r${i}`, 1))),
      );
      const [row] = await fixture.sql<
        { transactions: string }[]
      >`SELECT count(DISTINCT xmin::text) AS transactions FROM usage`;
      expect(Number(row?.transactions)).toBe(1);
    } finally {
      await fixture.close();
    }
  });

  test("a debit the server refuses fails alone: the rest of its batch is charged once", async () => {
    const fixture = await openPostgresFixture(server);
    try {
      const accountId = await fixture.createAccount(100);
      const { keyId } = await fixture.createKey(accountId);
      // PostgreSQL text cannot hold NUL, which SQLite accepts: the batch's INSERT fails as a whole.
      const settled = await Promise.allSettled([
        fixture.ledger.debit(accountId, usage(keyId, "r1", 3)),
        fixture.ledger.debit(accountId, usage(keyId, "nul", 4, "/v1/\u0000")),
        fixture.ledger.debit(accountId, usage(keyId, "r2", 5)),
      ]);
      expect(settled).toMatchObject([
        { status: "fulfilled", value: { ok: true, remaining: 97 } },
        { status: "rejected", reason: { code: "invalid_usage" } },
        { status: "fulfilled", value: { ok: true, remaining: 92 } },
      ]);
      expect(await fixture.books(accountId)).toMatchObject({ balance: 92, usageRows: 2, usageCredits: 8 });
    } finally {
      await fixture.close();
    }
  });
});

describe("outage", () => {
  test("connection failures and the server's shutdown, overload and read-only states are outages", () => {
    const error = (code: string, errno?: string) => new SQL.PostgresError("x", { code, errno });
    const outages = [
      error("ERR_POSTGRES_CONNECTION_CLOSED"),
      error("ERR_POSTGRES_CONNECTION_REFUSED"),
      error("ERR_POSTGRES_CONNECTION_TIMEOUT"),
      error("ERR_POSTGRES_SERVER_ERROR", "57P01"),
      error("ERR_POSTGRES_SERVER_ERROR", "57P03"),
      error("ERR_POSTGRES_SERVER_ERROR", "08006"),
      error("ERR_POSTGRES_SERVER_ERROR", "53300"),
      error("ERR_POSTGRES_SERVER_ERROR", "25006"),
      Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
    ];
    const bugs = [
      error("ERR_POSTGRES_SERVER_ERROR", "23505"),
      error("ERR_POSTGRES_SERVER_ERROR", "42P01"),
      error("ERR_POSTGRES_SYNTAX_ERROR"),
      new Error("Connection closed"),
    ];
    expect(outages.filter((e) => !isDatabaseOutage(e))).toEqual([]);
    expect(bugs.filter(isDatabaseOutage)).toEqual([]);
  });

  test("a closed pool answers service_unavailable", async () => {
    const fixture = await openPostgresFixture(server);
    const closed = new SQL(fixture.url, { max: 1 });
    await closed.close();
    const errors = spyOn(console, "error").mockImplementation(() => {});
    try {
      const ledger = answeringOutages(new PostgresLedger(closed), isDatabaseOutage);
      expectUnavailable(await outcome(ledger.balance("acct_any")));
      expect(errors).toHaveBeenCalledTimes(1);
    } finally {
      errors.mockRestore();
      await fixture.close();
    }
  });

  test("a server killed mid-load: 503s, nothing charged for them, and the same ledger recovers", async () => {
    const fixture = await openPostgresFixture(server);
    // As the composition hands it out (packages/composition), answering outages.
    const ledger = answeringOutages(fixture.ledger, isDatabaseOutage);
    const start = 100_000;
    const accountId = await fixture.createAccount(start);
    const { keyId, keyHash } = await fixture.createKey(accountId);
    const errors = spyOn(console, "error").mockImplementation(() => {});
    let killed = false;
    try {
      const debit = (i: number) => {
        const requestId = `r${i}`;
        const cost = costOf(i);
        return outcome(ledger.debit(accountId, usage(keyId, requestId, cost))).then((o) => ({
          requestId,
          cost,
          outcome: o,
        }));
      };
      const range = (from: number, to: number) => Array.from({ length: to - from }, (_, index) => from + index);
      // Debits settled before the kill, debits in flight as it happens, and debits sent after it: each
      // phase is waited for, so the test holds on a machine of any speed.
      const before = await Promise.all(range(0, 100).map(debit));
      const inFlight = range(100, 300).map(debit);
      server.kill();
      killed = true;
      const after = await Promise.all(range(300, 400).map(debit));
      const settled = [...before, ...(await Promise.all(inFlight)), ...after];
      const during = await Promise.all([
        outcome(ledger.checkKey(keyHash)),
        outcome(ledger.balance(accountId)),
        outcome(ledger.refund(accountId, "r0")),
      ]);
      server.restart();
      killed = false;

      const charged = settled.filter((s) => "value" in s.outcome);
      const refused = settled.filter((s) => "error" in s.outcome);
      expect(before.every((s) => "value" in s.outcome)).toBe(true);
      expect(after.every((s) => "error" in s.outcome)).toBe(true);
      for (const result of [...refused.map((s) => s.outcome), ...during]) expectUnavailable(result);
      expect(charged.every((s) => "value" in s.outcome && s.outcome.value.ok)).toBe(true);
      for (const { requestId } of refused) expect(await fixture.charged(requestId)).toBe(false);
      // One line per refused call, as JSON the operator's log tooling can read.
      expect(errors).toHaveBeenCalledTimes(refused.length + during.length);
      const logged = JSON.parse(String(errors.mock.calls[0]?.[0]));
      expect(logged).toMatchObject({ level: "error", kind: "service_unavailable", error: expect.any(String) });

      // The same instance, its pool reconnecting by itself.
      expect(await ledger.debit(accountId, usage(keyId, "after", 5))).toMatchObject({ ok: true });
      expect(await ledger.checkKey(keyHash)).toMatchObject({ status: "active", accountId });
      const books = await fixture.books(accountId);
      expect(books.usageCredits).toBe(charged.reduce((sum, s) => sum + s.cost, 0) + 5);
      expect(books.balance).toBe(start - books.usageCredits);
      expect(books.grants).toBe(books.balance + books.usageCredits);
    } finally {
      errors.mockRestore();
      if (killed) server.restart();
      await fixture.close();
    }
  }, 20_000);
});

describe("key checks this process changed itself", () => {
  test("a key revoked or credits granted through its own Accounts show in the very next check", async () => {
    const fixture = await openPostgresFixture(server);
    const ledger = fixture.ledger as PostgresLedger;
    const accounts = new PostgresAccounts(fixture.sql, { onKeysChanged: (accountId) => ledger.keysChanged(accountId) });
    try {
      // Many at once, so that a check answered from memory before the database's notification arrives
      // would show in at least one of them.
      const keys = await Promise.all(
        Array.from({ length: 20 }, async () => {
          const accountId = await fixture.createAccount(0);
          return { accountId, ...(await fixture.createKey(accountId)) };
        }),
      );
      for (const { keyHash } of keys) expect(await ledger.checkKey(keyHash)).toMatchObject({ balance: 0 });
      const checks = await Promise.all(
        keys.map(async ({ accountId, keyId, keyHash }, i) => {
          if (i % 2 === 0) await accounts.revokeKey(keyId);
          else await accounts.grantCredits(accountId, 7);
          return ledger.checkKey(keyHash);
        }),
      );
      expect(checks).toEqual(
        keys.map(({ accountId, keyId }, i) =>
          i % 2 === 0 ? { status: "revoked", keyId } : { status: "active", accountId, keyId, balance: 7 },
        ),
      );
    } finally {
      await fixture.close();
    }
  });
});
