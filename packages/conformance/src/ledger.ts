// The Ledger port's contract, run against every adapter: what one debit, refusal, duplicate and refund
// write, and that concurrent debits, from one ledger or from two with connections of their own (two
// processes), never lose, double or overdraw a charge. Setup and checks go through the fixture, so the
// suite knows nothing of either database.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { DebitResult, KeyOptions, Ledger, UsageRecord } from "@social/core";
import { LedgerError } from "@social/core";

/** What the tables hold for one account, read through a connection other than the ledger's. */
export interface Books {
  balance: number;
  grants: number;
  usageRows: number;
  usageCredits: number;
  refunds: { refundOf: string; credits: number }[];
}

export interface LedgerFixture {
  ledger: Ledger;
  /** Another ledger on connections of its own to the same database, as a second process has. */
  openPeer(): Promise<{ ledger: Ledger; close(): Promise<void> }>;
  /** A new account whose starting `credits` are its first grant. */
  createAccount(credits: number): Promise<string>;
  createKey(accountId: string, options?: KeyOptions): Promise<{ keyId: string; keyHash: string }>;
  /** A ledger on the fixture's connection whose clock `now` pins (the day limits' UTC days). */
  ledgerAt(now: () => number): Ledger;
  grant(accountId: string, credits: number): Promise<void>;
  revokeKey(keyId: string): Promise<void>;
  books(accountId: string): Promise<Books>;
  charged(requestId: string): Promise<boolean>;
  lastUsedAt(keyId: string): Promise<number | null>;
  close(): Promise<void>;
}

function usage(keyId: string, requestId: string, credits: number): UsageRecord {
  return { requestId, keyId, endpoint: "/v1/search/recent", credits };
}

/** Deterministic mixed costs 1..41, so a failure reproduces. */
export function costOf(index: number): number {
  return ((index * 7919) % 41) + 1;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** What `read` gives once `done` holds for it, or after a second of asking. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let waited = 0; waited < 1000; waited += 10) {
    const value = await read();
    if (done(value)) return value;
    await Bun.sleep(10);
  }
  return read();
}

/**
 * Checks results against the only history a correct ledger can have produced from `start` credits:
 * costs are at least 1, so successful debits strictly lower the balance and their `remaining` values,
 * sorted, give the serial order in which they were applied. A refusal must report a balance of that
 * history that was too small for its cost. Returns the final balance.
 */
export function expectSerialisable(start: number, outcomes: { cost: number; result: DebitResult }[]): number {
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

export function ledgerConformance(name: string, open: () => Promise<LedgerFixture>): void {
  describe(`Ledger conformance: ${name}`, () => {
    let fixture: LedgerFixture;
    let ledger: Ledger;

    beforeEach(async () => {
      fixture = await open();
      ledger = fixture.ledger;
    });

    afterEach(() => fixture.close());

    async function setUp(credits: number): Promise<{ accountId: string; keyId: string; keyHash: string }> {
      const accountId = await fixture.createAccount(credits);
      return { accountId, ...(await fixture.createKey(accountId)) };
    }

    describe("a key's own limit and expiry", () => {
      const DAY = 86_400_000;

      async function limitedKey(credits: number, options: KeyOptions) {
        const accountId = await fixture.createAccount(credits);
        return { accountId, ...(await fixture.createKey(accountId, options)) };
      }

      test("a total limit charges up to it; past it the debit is refused as key_limit with what is left", async () => {
        const { accountId, keyId, keyHash } = await limitedKey(100, { limit: { credits: 10, per: "total" } });
        expect(await ledger.debit(accountId, usage(keyId, "r1", 6))).toEqual({ ok: true, remaining: 94 });
        expect(await ledger.debit(accountId, usage(keyId, "r2", 5))).toEqual({
          ok: false,
          reason: "key_limit",
          remaining: 4,
          limit: { credits: 10, per: "total" },
        });
        expect(await ledger.debit(accountId, usage(keyId, "r3", 4))).toEqual({ ok: true, remaining: 90 });
        expect(await fixture.books(accountId)).toMatchObject({ balance: 90, usageRows: 2, usageCredits: 10 });
        const check = await eventually(
          () => ledger.checkKey(keyHash),
          (value) => value.status === "active" && value.allowance?.remaining === 0,
        );
        expect(check).toMatchObject({ allowance: { credits: 10, per: "total", remaining: 0 } });
      });

      test("the refusal names whichever leaves less, the balance or the key's limit", async () => {
        const poor = await limitedKey(3, { limit: { credits: 10, per: "total" } });
        expect(await ledger.debit(poor.accountId, usage(poor.keyId, "poor", 5))).toEqual({
          ok: false,
          reason: "balance",
          remaining: 3,
        });
        const capped = await limitedKey(100, { limit: { credits: 2, per: "day" } });
        expect(await ledger.debit(capped.accountId, usage(capped.keyId, "capped", 5))).toMatchObject({
          ok: false,
          reason: "key_limit",
          remaining: 2,
        });
      });

      test("a day limit starts over on the next UTC day", async () => {
        let now = Date.UTC(2026, 10, 24, 23, 59);
        const clocked = fixture.ledgerAt(() => now);
        const { accountId, keyId } = await limitedKey(100, { limit: { credits: 5, per: "day" } });
        expect(await clocked.debit(accountId, usage(keyId, "d1", 5))).toMatchObject({ ok: true });
        expect(await clocked.debit(accountId, usage(keyId, "d2", 1))).toMatchObject({ reason: "key_limit" });
        now += 2 * 60_000;
        expect(await clocked.debit(accountId, usage(keyId, "d3", 5))).toEqual({ ok: true, remaining: 90 });
        expect(await clocked.debit(accountId, usage(keyId, "d4", 1))).toMatchObject({ remaining: 0 });
        now += DAY;
        expect(await clocked.debit(accountId, usage(keyId, "d5", 1))).toEqual({ ok: true, remaining: 89 });
      });

      test("a refunded charge counts against the limit no more", async () => {
        const { accountId, keyId } = await limitedKey(100, { limit: { credits: 10, per: "total" } });
        await ledger.debit(accountId, usage(keyId, "gone", 8));
        expect(await ledger.debit(accountId, usage(keyId, "blocked", 5))).toMatchObject({ reason: "key_limit" });
        await ledger.refund(accountId, "gone");
        expect(await ledger.debit(accountId, usage(keyId, "after", 10))).toEqual({ ok: true, remaining: 90 });
      });

      test("an expired key is active until its time, then refused at the debit, uncharged", async () => {
        const now = Date.now();
        const { accountId, keyId, keyHash } = await limitedKey(100, { expiresAt: now + DAY });
        expect(await ledger.checkKey(keyHash)).toMatchObject({ status: "active", expiresAt: now + DAY });
        expect(await ledger.debit(accountId, usage(keyId, "before", 1))).toMatchObject({ ok: true });
        const error = await rejection(fixture.ledgerAt(() => now + DAY).debit(accountId, usage(keyId, "after", 1)));
        expect(error).toBeInstanceOf(LedgerError);
        expect((error as LedgerError).code).toBe("expired_key");
        expect(await fixture.books(accountId)).toMatchObject({ balance: 99, usageRows: 1 });
      });

      test("64 concurrent debits, from this ledger and another process's, never take a key past its limit", async () => {
        const { accountId, keyId } = await limitedKey(10_000, { limit: { credits: 50, per: "day" } });
        const peer = await fixture.openPeer();
        try {
          const results = await Promise.all(
            Array.from({ length: 64 }, (_, i) =>
              (i % 2 === 0 ? ledger : peer.ledger).debit(accountId, usage(keyId, `c${i}`, 1 + (i % 3))),
            ),
          );
          const charged = results.flatMap((result, i) => (result.ok ? [1 + (i % 3)] : []));
          const spent = charged.reduce((sum, credits) => sum + credits, 0);
          expect(spent).toBeLessThanOrEqual(50);
          // Refused only for the key's limit, and only when what it left could not cover the debit.
          expect(
            results.filter((result) => !result.ok).every((result) => !result.ok && result.reason === "key_limit"),
          ).toBe(true);
          expect(spent).toBeGreaterThan(47);
          expect(await fixture.books(accountId)).toMatchObject({ balance: 10_000 - spent, usageCredits: spent });
        } finally {
          await peer.close();
        }
      });
    });

    test("a debit charges exactly its cost and records its usage, in one commit", async () => {
      const { accountId, keyId } = await setUp(100);
      expect(await ledger.debit(accountId, usage(keyId, "r1", 7))).toEqual({ ok: true, remaining: 93 });
      expect(await ledger.balance(accountId)).toBe(93);
      expect(await fixture.books(accountId)).toEqual({
        balance: 93,
        grants: 100,
        usageRows: 1,
        usageCredits: 7,
        refunds: [],
      });
    });

    test("a cost one above the balance is refused and writes nothing; the exact balance succeeds", async () => {
      const { accountId, keyId } = await setUp(5);
      expect(await ledger.debit(accountId, usage(keyId, "too-much", 6))).toEqual({
        ok: false,
        reason: "balance",
        remaining: 5,
      });
      expect(await fixture.charged("too-much")).toBe(false);
      expect(await ledger.debit(accountId, usage(keyId, "exact", 5))).toEqual({ ok: true, remaining: 0 });
      expect(await ledger.debit(accountId, usage(keyId, "empty", 1))).toEqual({
        ok: false,
        reason: "balance",
        remaining: 0,
      });
      expect(await ledger.debit(accountId, usage(keyId, "free", 0))).toEqual({ ok: true, remaining: 0 });
      expect(await fixture.books(accountId)).toMatchObject({ balance: 0, usageRows: 2, usageCredits: 5 });
    });

    test("a duplicate request id is rejected and not charged, also within one batch", async () => {
      const { accountId, keyId } = await setUp(100);
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
      expect(second).toMatchObject({ status: "rejected", reason: { code: "duplicate_request" } });
      expect(await fixture.books(accountId)).toMatchObject({ balance: 80, usageRows: 2, usageCredits: 20 });
    });

    test("invalid amounts, unknown accounts and unknown keys fail alone, without touching the batch", async () => {
      const { accountId, keyId } = await setUp(100);
      const settled = await Promise.allSettled([
        ledger.debit(accountId, usage(keyId, "negative", -5)),
        ledger.debit(accountId, usage(keyId, "fraction", 1.5)),
        ledger.debit("acct_missing", usage(keyId, "nobody", 1)),
        ledger.debit(accountId, usage("key_missing", "no-key", 1)),
        ledger.debit(accountId, usage(keyId, "fine", 3)),
      ]);
      const codes = settled.map((s) => (s.status === "rejected" ? (s.reason as LedgerError).code : "ok"));
      expect(codes).toEqual(["invalid_amount", "invalid_amount", "unknown_account", "unknown_key", "ok"]);
      expect(await fixture.books(accountId)).toMatchObject({ balance: 97, usageRows: 1, usageCredits: 3 });
      expect(await rejection(ledger.balance("acct_missing"))).toMatchObject({ code: "unknown_account" });
    });

    test("concurrent debits share one commit, made before any of them resolves", async () => {
      const { accountId, keyId } = await setUp(1000);
      const debits = Array.from({ length: 100 }, (_, i) => ledger.debit(accountId, usage(keyId, `r${i}`, 1)));
      const seenAtFirstResolve = await debits[0]?.then(() => fixture.books(accountId));
      await Promise.all(debits);
      expect(seenAtFirstResolve?.usageRows).toBe(100);
    });

    test("checkKey answers active with the balance, revoked, or unknown", async () => {
      const { accountId, keyId, keyHash } = await setUp(50);
      await ledger.debit(accountId, usage(keyId, "r1", 8));
      expect(await ledger.checkKey(keyHash)).toEqual({ status: "active", accountId, keyId, balance: 42 });
      expect(await ledger.checkKey("0".repeat(64))).toEqual({ status: "unknown" });
      expect(await ledger.checkKey("not a digest")).toEqual({ status: "unknown" });
      expect(await ledger.checkKey(keyHash.toUpperCase())).toEqual({ status: "unknown" });
      await fixture.revokeKey(keyId);
      // PostgreSQL keeps active keys in memory until the database's notification of the revocation
      // arrives (a moment after the commit); SQLite reads every check.
      const check = await eventually(
        () => ledger.checkKey(keyHash),
        (value) => value.status !== "active",
      );
      expect(check).toEqual({ status: "revoked", keyId });
    });

    test("credits granted show in the next checks of the account's keys", async () => {
      const { accountId, keyHash } = await setUp(0);
      expect(await ledger.checkKey(keyHash)).toMatchObject({ status: "active", balance: 0 });
      await fixture.grant(accountId, 100);
      const check = await eventually(
        () => ledger.checkKey(keyHash),
        (value) => value.status === "active" && value.balance !== 0,
      );
      expect(check).toMatchObject({ status: "active", balance: 100 });
    });

    test("a key revoked after its check is refused at the debit, and nothing is charged", async () => {
      const { accountId, keyId, keyHash } = await setUp(50);
      expect((await ledger.checkKey(keyHash)).status).toBe("active");
      await fixture.revokeKey(keyId);
      const error = await rejection(ledger.debit(accountId, usage(keyId, "late", 5)));
      expect(error).toBeInstanceOf(LedgerError);
      expect((error as LedgerError).code).toBe("revoked_key");
      expect(await fixture.books(accountId)).toMatchObject({ balance: 50, usageRows: 0 });
    });

    test("a debit records when its key was last used", async () => {
      const { accountId, keyId } = await setUp(100);
      expect(await fixture.lastUsedAt(keyId)).toBeNull();
      const before = Date.now();
      await Promise.all([
        ledger.debit(accountId, usage(keyId, "r1", 1)),
        ledger.debit(accountId, usage(keyId, "r2", 1)),
      ]);
      const lastUsed = await fixture.lastUsedAt(keyId);
      expect(lastUsed).toBeGreaterThanOrEqual(before);
      expect(lastUsed).toBeLessThanOrEqual(Date.now());
    });

    test("a refund gives a charge back once, with a grant naming the request; the books still balance", async () => {
      const { accountId, keyId } = await setUp(100);
      await ledger.debit(accountId, usage(keyId, "req_a", 21));
      await ledger.debit(accountId, usage(keyId, "req_b", 5));
      await Promise.all([ledger.refund(accountId, "req_a"), ledger.refund(accountId, "req_a")]);
      await ledger.refund(accountId, "req_a");
      const books = await fixture.books(accountId);
      expect(books).toMatchObject({ balance: 95, refunds: [{ refundOf: "req_a", credits: 21 }] });
      expect(books.grants).toBe(books.balance + books.usageCredits);
      expect(await ledger.balance(accountId)).toBe(95);
    });

    test("a refund leaves a request never charged, or another account's, alone", async () => {
      const { accountId, keyId } = await setUp(100);
      const other = await setUp(100);
      await ledger.debit(accountId, usage(keyId, "req_c", 7));
      await ledger.refund(accountId, "req_unknown");
      await ledger.refund(other.accountId, "req_c");
      expect(await fixture.books(accountId)).toMatchObject({ balance: 93, grants: 100, refunds: [] });
      expect(await fixture.books(other.accountId)).toMatchObject({ balance: 100, grants: 100, refunds: [] });
      expect(await rejection(ledger.refund("acct_missing", "req_c"))).toMatchObject({ code: "unknown_account" });
    });

    test("64 concurrent mixed debits crossing into refusal: grants = balance + charges, never negative", async () => {
      const { accountId, keyId } = await setUp(600);
      await fixture.grant(accountId, 100);
      const pending: Promise<DebitResult>[] = [];
      for (let i = 0; i < 64; i++) {
        pending.push(ledger.debit(accountId, usage(keyId, `r${i}`, costOf(i))));
        // Over several event-loop turns, hence several batches.
        if (i % 16 === 15) await nextTurn();
      }
      const results = await Promise.all(pending);

      // One ledger applies its queue in call order: the exact serial history is known.
      let balance = 700;
      results.forEach((result, i) => {
        const ok = costOf(i) <= balance;
        if (ok) balance -= costOf(i);
        expect(result).toEqual(ok ? { ok, remaining: balance } : { ok, reason: "balance", remaining: balance });
      });
      expect(results.some((result) => !result.ok)).toBe(true);
      const books = await fixture.books(accountId);
      expect(books.balance).toBe(balance);
      expect(books.grants).toBe(books.balance + books.usageCredits);
      expect(books.usageCredits).toBe(results.reduce((sum, r, i) => sum + (r.ok ? costOf(i) : 0), 0));
    });

    test("two ledgers with connections of their own debiting one account together lose and double nothing", async () => {
      const start = 12_000;
      const { accountId, keyId } = await setUp(start);
      const peer = await fixture.openPeer();
      const outcomes: Promise<{ cost: number; result: DebitResult }>[] = [];
      try {
        for (let i = 0; i < 800; i++) {
          const target = i % 2 === 0 ? ledger : peer.ledger;
          const cost = costOf(i);
          outcomes.push(target.debit(accountId, usage(keyId, `r${i}`, cost)).then((result) => ({ cost, result })));
          // Spread over time, so that the two ledgers' commits interleave rather than follow each other.
          if (i % 10 === 0) await Bun.sleep(1);
        }
        const settled = await Promise.all(outcomes);
        const final = expectSerialisable(start, settled);
        expect(settled.some((o) => !o.result.ok)).toBe(true);
        const books = await fixture.books(accountId);
        expect(books).toMatchObject({
          balance: final,
          usageRows: settled.filter((o) => o.result.ok).length,
          usageCredits: start - final,
        });
        expect(books.grants).toBe(books.balance + books.usageCredits);
      } finally {
        await peer.close();
      }
    });
  });
}
