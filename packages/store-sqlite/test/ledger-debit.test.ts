import type { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DebitResult, LedgerError } from "@social/core";
import {
  createAccount,
  createKey,
  getAccount,
  grantCredits,
  listKeys,
  openDatabase,
  SqliteLedger,
} from "../src/index.ts";

let dir: string;
let url: string;
let db: Database;
let ledger: SqliteLedger;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ledger-debit-"));
  url = `file:${join(dir, "social.db")}`;
  db = openDatabase(url);
  ledger = new SqliteLedger(db);
});

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function setUp(credits: number): { accountId: string; keyId: string } {
  const account = createAccount(db, "Ada", credits);
  return { accountId: account.id, keyId: createKey(db, account.id, "test").keyId };
}

function usage(keyId: string, requestId: string, credits: number) {
  return { requestId, keyId, endpoint: "/v1/search/recent", credits };
}

function usageTotals(accountId: string): { rows: number; credits: number } {
  const row = db
    .query<{ rows: number; credits: number | null }, [string]>(
      "SELECT count(*) AS rows, sum(credits) AS credits FROM usage WHERE account_id = ?",
    )
    .get(accountId);
  return { rows: row?.rows ?? 0, credits: row?.credits ?? 0 };
}

function grantTotal(accountId: string): number {
  return (
    db
      .query<{ total: number }, [string]>("SELECT sum(credits) AS total FROM grants WHERE account_id = ?")
      .get(accountId)?.total ?? 0
  );
}

function usageRowExists(requestId: string): boolean {
  return db.query<{ found: 1 }, [string]>("SELECT 1 AS found FROM usage WHERE request_id = ?").get(requestId) !== null;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

/** Deterministic mixed costs 1..41, so a failure reproduces. */
function costOf(index: number): number {
  return ((index * 7919) % 41) + 1;
}

/**
 * Checks results against the only history a correct ledger can have produced from `start` credits:
 * costs are at least 1, so successful debits strictly lower the balance and their `remaining` values,
 * sorted, give the serial order in which they were applied. A refusal must report a balance of that
 * history that was too small for its cost.
 */
function expectSerialisable(start: number, outcomes: { cost: number; result: DebitResult }[]): number {
  const charged = outcomes.filter((o) => o.result.ok).sort((a, b) => b.result.remaining - a.result.remaining);
  const balances = new Set([start]);
  let balance = start;
  for (const { cost, result } of charged) {
    balance -= cost;
    expect(result.remaining).toBe(balance);
    balances.add(balance);
  }
  expect(balance).toBeGreaterThanOrEqual(0);
  for (const { cost, result } of outcomes.filter((o) => !o.result.ok)) {
    expect(balances.has(result.remaining)).toBe(true);
    expect(result.remaining).toBeLessThan(cost);
  }
  return balance;
}

describe("debit", () => {
  test("charges exactly the cost and records the usage", async () => {
    const { accountId, keyId } = setUp(100);
    expect(await ledger.debit(accountId, usage(keyId, "r1", 7))).toEqual({ ok: true, remaining: 93 });
    expect(await ledger.balance(accountId)).toBe(93);
    expect(usageTotals(accountId)).toEqual({ rows: 1, credits: 7 });
  });

  test("refuses a cost one above the balance and writes nothing; the exact balance succeeds", async () => {
    const { accountId, keyId } = setUp(5);
    expect(await ledger.debit(accountId, usage(keyId, "too-much", 6))).toEqual({ ok: false, remaining: 5 });
    expect(await ledger.balance(accountId)).toBe(5);
    expect(usageRowExists("too-much")).toBe(false);
    expect(await ledger.debit(accountId, usage(keyId, "exact", 5))).toEqual({ ok: true, remaining: 0 });
    expect(await ledger.debit(accountId, usage(keyId, "empty", 1))).toEqual({ ok: false, remaining: 0 });
    expect(usageTotals(accountId)).toEqual({ rows: 1, credits: 5 });
  });

  test("a duplicate request id is rejected and not charged, also within one batch", async () => {
    const { accountId, keyId } = setUp(100);
    await ledger.debit(accountId, usage(keyId, "r1", 10));
    const again = await rejection(ledger.debit(accountId, usage(keyId, "r1", 10)));
    expect(again).toBeInstanceOf(LedgerError);
    expect((again as LedgerError).code).toBe("duplicate_request");
    expect(await ledger.balance(accountId)).toBe(90);

    const [first, second] = await Promise.allSettled([
      ledger.debit(accountId, usage(keyId, "r2", 10)),
      ledger.debit(accountId, usage(keyId, "r2", 10)),
    ]);
    expect(first).toEqual({ status: "fulfilled", value: { ok: true, remaining: 80 } });
    expect(second?.status).toBe("rejected");
    expect(await ledger.balance(accountId)).toBe(80);
    expect(usageTotals(accountId)).toEqual({ rows: 2, credits: 20 });
  });

  test("invalid amounts, unknown accounts and unknown keys are rejected without touching the batch", async () => {
    const { accountId, keyId } = setUp(100);
    const settled = await Promise.allSettled([
      ledger.debit(accountId, usage(keyId, "negative", -5)),
      ledger.debit(accountId, usage(keyId, "fraction", 1.5)),
      ledger.debit("acct_missing", usage(keyId, "nobody", 1)),
      ledger.debit(accountId, usage("key_missing", "no-key", 1)),
      ledger.debit(accountId, usage(keyId, "fine", 3)),
    ]);
    const codes = settled.map((s) => (s.status === "rejected" ? (s.reason as LedgerError).code : "ok"));
    expect(codes).toEqual(["invalid_amount", "invalid_amount", "unknown_account", "unknown_key", "ok"]);
    expect(await ledger.balance(accountId)).toBe(97);
    expect(usageTotals(accountId)).toEqual({ rows: 1, credits: 3 });
    expect(await rejection(ledger.balance("acct_missing"))).toBeInstanceOf(LedgerError);
  });

  test("concurrent debits share one transaction, committed before any of them resolves", async () => {
    const { accountId, keyId } = setUp(1000);
    const observer = openDatabase(url);
    const visibleAtFirstResolve: number[] = [];
    const debits = Array.from({ length: 100 }, (_, i) =>
      ledger.debit(accountId, usage(keyId, `r${i}`, 1)).then((result) => {
        const row = observer.query<{ n: number }, []>("SELECT count(*) AS n FROM usage").get();
        visibleAtFirstResolve.push(row?.n ?? 0);
        return result;
      }),
    );
    await Promise.all(debits);
    observer.close();
    expect(visibleAtFirstResolve[0]).toBe(100);
  });

  test("records when each key was last used", async () => {
    const { accountId, keyId } = setUp(100);
    const pinned = new SqliteLedger(db, { now: () => 1_750_000_000_000 });
    await Promise.all([pinned.debit(accountId, usage(keyId, "r1", 1)), pinned.debit(accountId, usage(keyId, "r2", 1))]);
    expect(listKeys(db, accountId)[0]?.lastUsedAt).toBe(1_750_000_000_000);
  });

  test("a failed transaction rejects the whole batch and charges nothing", async () => {
    const { accountId, keyId } = setUp(100);
    const blocker = openDatabase(url);
    db.run("PRAGMA busy_timeout = 10");
    blocker.run("BEGIN IMMEDIATE");
    const settled = await Promise.allSettled([
      ledger.debit(accountId, usage(keyId, "r1", 1)),
      ledger.debit(accountId, usage(keyId, "r2", 2)),
    ]);
    blocker.run("ROLLBACK");
    blocker.close();
    expect(settled.map((s) => s.status)).toEqual(["rejected", "rejected"]);
    expect(await ledger.balance(accountId)).toBe(100);
    expect(usageTotals(accountId).rows).toBe(0);
    expect(await ledger.debit(accountId, usage(keyId, "r1", 1))).toEqual({ ok: true, remaining: 99 });
  });
});

describe("debit under concurrency", () => {
  test("2,000 concurrent mixed debits lose nothing, double nothing and never overdraw", async () => {
    const { accountId, keyId } = setUp(15_000);
    grantCredits(db, accountId, 5_000);
    const start = grantTotal(accountId);
    const pending: Promise<DebitResult>[] = [];
    for (let i = 0; i < 2_000; i++) {
      pending.push(ledger.debit(accountId, usage(keyId, `r${i}`, costOf(i))));
      // Yield now and then so the debits arrive over several event-loop turns, hence several batches.
      if (i % 150 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    const results = await Promise.all(pending);

    // One ledger applies its queue in call order: the exact serial history is known.
    let balance = start;
    results.forEach((result, i) => {
      const cost = costOf(i);
      const ok = cost <= balance;
      if (ok) balance -= cost;
      expect(result).toEqual({ ok, remaining: balance });
      expect(usageRowExists(`r${i}`)).toBe(result.ok);
    });
    expect(results.some((result) => !result.ok)).toBe(true);
    const final = getAccount(db, accountId)?.balance ?? -1;
    expect(final).toBe(balance);
    expect(final).toBeGreaterThanOrEqual(0);
    expect(usageTotals(accountId).credits + final).toBe(start);
  });

  test("two ledgers on two connections to the same file debiting together lose nothing", async () => {
    const { accountId, keyId } = setUp(20_000);
    const secondDb = openDatabase(url);
    const second = new SqliteLedger(secondDb);
    const outcomes: Promise<{ cost: number; result: DebitResult }>[] = [];
    for (let i = 0; i < 2_000; i++) {
      const cost = costOf(i);
      const target = i % 2 === 0 ? ledger : second;
      outcomes.push(target.debit(accountId, usage(keyId, `r${i}`, cost)).then((result) => ({ cost, result })));
      if (i % 97 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    const settled = await Promise.all(outcomes);
    secondDb.close();

    const final = expectSerialisable(20_000, settled);
    expect(settled.some((o) => !o.result.ok)).toBe(true);
    expect(await ledger.balance(accountId)).toBe(final);
    expect(usageTotals(accountId)).toEqual({
      rows: settled.filter((o) => o.result.ok).length,
      credits: 20_000 - final,
    });
  });

  test("a second process debiting the same account at the same time loses nothing", async () => {
    const start = 100_000;
    const { accountId, keyId } = setUp(start);
    const perProcess = 3_000;
    // The child opens its own connection, says "ready", and starts debiting when told "go"; both sides
    // then spread their debits over a few hundred milliseconds, so the two processes' commits interleave.
    const child = Bun.spawn(
      [
        process.execPath,
        "-e",
        `
        import { openDatabase, SqliteLedger } from ${JSON.stringify(new URL("../src/index.ts", import.meta.url).pathname)};
        const ledger = new SqliteLedger(openDatabase(${JSON.stringify(url)}));
        console.log("ready");
        for await (const _ of Bun.stdin.stream()) break;
        const outcomes = [];
        for (let i = 0; i < ${perProcess}; i++) {
          const cost = ((i * 7919) % 41) + 1;
          outcomes.push(ledger.debit(${JSON.stringify(accountId)}, {
            requestId: "child-" + i, keyId: ${JSON.stringify(keyId)}, endpoint: "/v1/search/recent", credits: cost,
          }).then((result) => ({ cost, result })));
          if (i % 10 === 0) await Bun.sleep(1);
        }
        console.log(JSON.stringify(await Promise.all(outcomes)));
        `,
      ],
      { stdin: "pipe", stdout: "pipe", stderr: "inherit" },
    );
    const reader = child.stdout.getReader();
    const decoder = new TextDecoder();
    let output = "";
    while (!output.includes("ready\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`child exited before starting: ${output}`);
      output += decoder.decode(value);
    }
    child.stdin.write("go\n");
    child.stdin.end();

    const mine: Promise<{ cost: number; result: DebitResult }>[] = [];
    for (let i = 0; i < perProcess; i++) {
      const cost = costOf(i + 1);
      mine.push(ledger.debit(accountId, usage(keyId, `parent-${i}`, cost)).then((result) => ({ cost, result })));
      if (i % 10 === 0) await Bun.sleep(1);
    }
    const parentOutcomes = await Promise.all(mine);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      output += decoder.decode(value);
    }
    expect(await child.exited).toBe(0);
    const childOutcomes: { cost: number; result: DebitResult }[] = JSON.parse(output.slice(output.indexOf("\n") + 1));
    expect(childOutcomes).toHaveLength(perProcess);

    const all = [...parentOutcomes, ...childOutcomes];
    const final = expectSerialisable(start, all);
    expect(all.some((o) => !o.result.ok)).toBe(true);
    expect(await ledger.balance(accountId)).toBe(final);
    expect(usageTotals(accountId)).toEqual({ rows: all.filter((o) => o.result.ok).length, credits: start - final });
    // The test proves something only if the two processes' commits really interleaved.
    const writers = db
      .query<{ writer: string }, []>("SELECT substr(request_id, 1, 5) AS writer FROM usage ORDER BY id")
      .all();
    const handovers = writers.filter((row, i) => i > 0 && row.writer !== writers[i - 1]?.writer).length;
    expect(handovers).toBeGreaterThan(0);
  }, 30_000);
});

describe("refund", () => {
  test("gives back a charge once, with a grant naming the request; the books still balance", async () => {
    const { accountId, keyId } = setUp(100);
    await ledger.debit(accountId, usage(keyId, "req_a", 21));
    await ledger.debit(accountId, usage(keyId, "req_b", 5));
    await Promise.all([ledger.refund(accountId, "req_a"), ledger.refund(accountId, "req_a")]);
    await ledger.refund(accountId, "req_a");
    expect(getAccount(db, accountId)?.balance).toBe(95);
    const refunds = db
      .query<{ refund_of: string; credits: number }, [string]>(
        "SELECT refund_of, credits FROM grants WHERE account_id = ? AND refund_of IS NOT NULL",
      )
      .all(accountId);
    expect(refunds).toEqual([{ refund_of: "req_a", credits: 21 }]);
    expect(grantTotal(accountId)).toBe(95 + usageTotals(accountId).credits);
  });

  test("leaves a request never charged, or another account's, alone", async () => {
    const { accountId, keyId } = setUp(100);
    const other = setUp(100);
    await ledger.debit(accountId, usage(keyId, "req_c", 7));
    await ledger.refund(accountId, "req_unknown");
    await ledger.refund(other.accountId, "req_c");
    expect(getAccount(db, accountId)?.balance).toBe(93);
    expect(getAccount(db, other.accountId)?.balance).toBe(100);
    expect(grantTotal(accountId)).toBe(100);
  });
});
