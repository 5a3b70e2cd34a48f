import type { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { costOf } from "@social/conformance";
import type { DebitResult } from "@social/core";
import { createAccount, createKey, getAccount, grantCredits, openDatabase, SqliteLedger } from "../src/index.ts";

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

// The Ledger contract itself (charges, refusals, duplicates, refunds, concurrency, key use) is the
// conformance suite's (@social/conformance, run here by ledger-conformance.test.ts). What is left here
// is SQLite's own: its write lock, and its single-ledger batch order.
describe("debit on SQLite", () => {
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
      expect(result).toEqual(ok ? { ok, remaining: balance } : { ok, reason: "balance", remaining: balance });
      expect(usageRowExists(`r${i}`)).toBe(result.ok);
    });
    expect(results.some((result) => !result.ok)).toBe(true);
    const final = getAccount(db, accountId)?.balance ?? -1;
    expect(final).toBe(balance);
    expect(final).toBeGreaterThanOrEqual(0);
    expect(usageTotals(accountId).credits + final).toBe(start);
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
