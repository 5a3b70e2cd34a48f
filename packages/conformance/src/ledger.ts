// The Ledger port's contract, run against every adapter: what one debit, refusal, duplicate and refund
// write, and that concurrent debits, from one ledger or from two with connections of their own (two
// processes), never lose, double or overdraw a charge. Setup and checks go through the fixture, so the
// suite knows nothing of either database. The reference is a serial ledger in memory (./serial-ledger.ts):
// every debit's outcome is the one it gives, and after each test every account's books are its books.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { KeyOptions, Ledger, UsageRecord } from "@social/core";
import {
  type Books,
  type DebitOutcome,
  outcomeOf,
  replaySerially,
  SerialLedger,
  type SettledDebit,
} from "./serial-ledger.ts";

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

export function ledgerConformance(name: string, open: () => Promise<LedgerFixture>): void {
  describe(`Ledger conformance: ${name}`, () => {
    let fixture: LedgerFixture;
    let ledger: Ledger;
    let model: SerialLedger;

    beforeEach(async () => {
      fixture = await open();
      ledger = fixture.ledger;
      model = new SerialLedger();
    });

    afterEach(async () => {
      try {
        for (const accountId of model.accountIds()) {
          expect(await fixture.books(accountId), accountId).toEqual(model.books(accountId));
        }
      } finally {
        await fixture.close();
      }
    });

    async function createAccount(credits: number): Promise<string> {
      const accountId = await fixture.createAccount(credits);
      model.openAccount(accountId, credits);
      return accountId;
    }

    async function createKey(accountId: string, options?: KeyOptions) {
      const key = await fixture.createKey(accountId, options);
      model.addKey(accountId, key.keyId, options);
      return key;
    }

    async function setUp(credits: number, options?: KeyOptions) {
      const accountId = await createAccount(credits);
      return { accountId, ...(await createKey(accountId, options)) };
    }

    /** One debit through `through` (the fixture's ledger), which must come to what the model gives at `at`. */
    async function debit(
      accountId: string,
      record: UsageRecord,
      { through = ledger, at = Date.now }: { through?: Ledger; at?: () => number } = {},
    ): Promise<DebitOutcome> {
      const outcome = await outcomeOf(through.debit(accountId, record));
      expect(outcome, record.requestId).toEqual(model.debit(accountId, record, at()));
      return outcome;
    }

    /** Debits made together through one ledger, which applies them in call order as the model does. */
    async function debitTogether(accountId: string, records: UsageRecord[]): Promise<DebitOutcome[]> {
      const outcomes = await Promise.all(records.map((record) => outcomeOf(ledger.debit(accountId, record))));
      expect(outcomes).toEqual(records.map((record) => model.debit(accountId, record, Date.now())));
      return outcomes;
    }

    async function refund(accountId: string, requestId: string): Promise<void> {
      await ledger.refund(accountId, requestId);
      model.refund(accountId, requestId);
    }

    async function grant(accountId: string, credits: number): Promise<void> {
      await fixture.grant(accountId, credits);
      model.grant(accountId, credits);
    }

    async function revokeKey(keyId: string): Promise<void> {
      await fixture.revokeKey(keyId);
      model.revokeKey(keyId);
    }

    describe("a key's own limit and expiry", () => {
      const DAY = 86_400_000;

      test("a total limit charges up to it; past it the debit is refused as key_limit with what is left", async () => {
        const { accountId, keyId, keyHash } = await setUp(100, { limit: { credits: 10, per: "total" } });
        expect(await debit(accountId, usage(keyId, "r1", 6))).toEqual({ ok: true, remaining: 94 });
        expect(await debit(accountId, usage(keyId, "r2", 5))).toEqual({
          ok: false,
          reason: "key_limit",
          remaining: 4,
          limit: { credits: 10, per: "total" },
        });
        expect(await debit(accountId, usage(keyId, "r3", 4))).toEqual({ ok: true, remaining: 90 });
        const check = await eventually(
          () => ledger.checkKey(keyHash),
          (value) => value.status === "active" && value.allowance?.remaining === 0,
        );
        expect(check).toMatchObject({ allowance: { credits: 10, per: "total", remaining: 0 } });
      });

      test("the refusal names whichever leaves less, the balance or the key's limit", async () => {
        const poor = await setUp(3, { limit: { credits: 10, per: "total" } });
        expect(await debit(poor.accountId, usage(poor.keyId, "poor", 5))).toEqual({
          ok: false,
          reason: "balance",
          remaining: 3,
        });
        const capped = await setUp(100, { limit: { credits: 2, per: "day" } });
        expect(await debit(capped.accountId, usage(capped.keyId, "capped", 5))).toMatchObject({
          ok: false,
          reason: "key_limit",
          remaining: 2,
        });
      });

      test("a day limit starts over on the next UTC day", async () => {
        let now = Date.UTC(2026, 10, 24, 23, 59);
        const clocked = { through: fixture.ledgerAt(() => now), at: () => now };
        const { accountId, keyId } = await setUp(100, { limit: { credits: 5, per: "day" } });
        expect(await debit(accountId, usage(keyId, "d1", 5), clocked)).toMatchObject({ ok: true });
        expect(await debit(accountId, usage(keyId, "d2", 1), clocked)).toMatchObject({ reason: "key_limit" });
        now += 2 * 60_000;
        expect(await debit(accountId, usage(keyId, "d3", 5), clocked)).toEqual({ ok: true, remaining: 90 });
        expect(await debit(accountId, usage(keyId, "d4", 1), clocked)).toMatchObject({ remaining: 0 });
        now += DAY;
        expect(await debit(accountId, usage(keyId, "d5", 1), clocked)).toEqual({ ok: true, remaining: 89 });
      });

      test("a refunded charge counts against the limit no more", async () => {
        const { accountId, keyId } = await setUp(100, { limit: { credits: 10, per: "total" } });
        await debit(accountId, usage(keyId, "gone", 8));
        expect(await debit(accountId, usage(keyId, "blocked", 5))).toMatchObject({ reason: "key_limit" });
        await refund(accountId, "gone");
        expect(await debit(accountId, usage(keyId, "after", 10))).toEqual({ ok: true, remaining: 90 });
      });

      test("an expired key is active until its time, then refused at the debit, uncharged", async () => {
        const now = Date.now();
        const { accountId, keyId, keyHash } = await setUp(100, { expiresAt: now + DAY });
        expect(await ledger.checkKey(keyHash)).toMatchObject({ status: "active", expiresAt: now + DAY });
        expect(await debit(accountId, usage(keyId, "before", 1))).toMatchObject({ ok: true });
        const late = { through: fixture.ledgerAt(() => now + DAY), at: () => now + DAY };
        expect(await debit(accountId, usage(keyId, "after", 1), late)).toEqual({ error: "expired_key" });
      });

      test("64 concurrent debits, from this ledger and another process's, never take a key past its limit", async () => {
        const { accountId, keyId } = await setUp(10_000, { limit: { credits: 50, per: "day" } });
        const peer = await fixture.openPeer();
        try {
          const records = Array.from({ length: 64 }, (_, i) => usage(keyId, `c${i}`, 1 + (i % 3)));
          const outcomes = await Promise.all(
            records.map((record, i) => outcomeOf((i % 2 === 0 ? ledger : peer.ledger).debit(accountId, record))),
          );
          replaySerially(
            model,
            records.map((record, i) => ({ accountId, usage: record, outcome: outcomes[i] as DebitOutcome })),
            Date.now,
          );
          // Refused only for the key's limit, and only when what it left could not cover the debit.
          expect(outcomes.every((outcome) => "ok" in outcome && (outcome.ok || outcome.reason === "key_limit"))).toBe(
            true,
          );
          expect(model.books(accountId).usageCredits).toBeGreaterThan(47);
        } finally {
          await peer.close();
        }
      });
    });

    test("a debit charges exactly its cost and records its usage, in one commit", async () => {
      const { accountId, keyId } = await setUp(100);
      expect(await debit(accountId, usage(keyId, "r1", 7))).toEqual({ ok: true, remaining: 93 });
      expect(await ledger.balance(accountId)).toBe(93);
      expect(model.books(accountId)).toEqual({
        balance: 93,
        grants: 100,
        usageRows: 1,
        usageCredits: 7,
        refunds: [],
      });
    });

    test("a cost one above the balance is refused and writes nothing; the exact balance succeeds", async () => {
      const { accountId, keyId } = await setUp(5);
      expect(await debit(accountId, usage(keyId, "too-much", 6))).toEqual({
        ok: false,
        reason: "balance",
        remaining: 5,
      });
      expect(await fixture.charged("too-much")).toBe(false);
      expect(await debit(accountId, usage(keyId, "exact", 5))).toEqual({ ok: true, remaining: 0 });
      expect(await debit(accountId, usage(keyId, "empty", 1))).toEqual({
        ok: false,
        reason: "balance",
        remaining: 0,
      });
      expect(await debit(accountId, usage(keyId, "free", 0))).toEqual({ ok: true, remaining: 0 });
      expect(model.books(accountId)).toMatchObject({ balance: 0, usageRows: 2, usageCredits: 5 });
    });

    test("a duplicate request id is rejected and not charged, also within one batch", async () => {
      const { accountId, keyId } = await setUp(100);
      await debit(accountId, usage(keyId, "r1", 10));
      expect(await debit(accountId, usage(keyId, "r1", 10))).toEqual({ error: "duplicate_request" });
      expect(await ledger.balance(accountId)).toBe(90);
      expect(await debitTogether(accountId, [usage(keyId, "r2", 10), usage(keyId, "r2", 10)])).toEqual([
        { ok: true, remaining: 80 },
        { error: "duplicate_request" },
      ]);
    });

    test("invalid amounts, unknown accounts and unknown keys fail alone, without touching the batch", async () => {
      const { accountId, keyId } = await setUp(100);
      const outcomes = await Promise.all([
        outcomeOf(ledger.debit(accountId, usage(keyId, "negative", -5))),
        outcomeOf(ledger.debit(accountId, usage(keyId, "fraction", 1.5))),
        outcomeOf(ledger.debit("acct_missing", usage(keyId, "nobody", 1))),
        outcomeOf(ledger.debit(accountId, usage("key_missing", "no-key", 1))),
        outcomeOf(ledger.debit(accountId, usage(keyId, "fine", 3))),
      ]);
      expect(outcomes).toEqual([
        model.debit(accountId, usage(keyId, "negative", -5), Date.now()),
        model.debit(accountId, usage(keyId, "fraction", 1.5), Date.now()),
        model.debit("acct_missing", usage(keyId, "nobody", 1), Date.now()),
        model.debit(accountId, usage("key_missing", "no-key", 1), Date.now()),
        model.debit(accountId, usage(keyId, "fine", 3), Date.now()),
      ]);
      expect(outcomes.map((outcome) => ("error" in outcome ? outcome.error : "ok"))).toEqual([
        "invalid_amount",
        "invalid_amount",
        "unknown_account",
        "unknown_key",
        "ok",
      ]);
      expect(await rejection(ledger.balance("acct_missing"))).toMatchObject({ code: "unknown_account" });
    });

    test("concurrent debits share one commit, made before any of them resolves", async () => {
      const { accountId, keyId } = await setUp(1000);
      const records = Array.from({ length: 100 }, (_, i) => usage(keyId, `r${i}`, 1));
      const debits = records.map((record) => ledger.debit(accountId, record));
      const seenAtFirstResolve = await debits[0]?.then(() => fixture.books(accountId));
      const outcomes = await Promise.all(debits);
      expect<DebitOutcome[]>(outcomes).toEqual(records.map((record) => model.debit(accountId, record, Date.now())));
      expect(seenAtFirstResolve?.usageRows).toBe(100);
    });

    test("checkKey answers active with the balance, revoked, or unknown", async () => {
      const { accountId, keyId, keyHash } = await setUp(50);
      await debit(accountId, usage(keyId, "r1", 8));
      expect(await ledger.checkKey(keyHash)).toEqual({ status: "active", accountId, keyId, balance: 42 });
      expect(await ledger.checkKey("0".repeat(64))).toEqual({ status: "unknown" });
      expect(await ledger.checkKey("not a digest")).toEqual({ status: "unknown" });
      expect(await ledger.checkKey(keyHash.toUpperCase())).toEqual({ status: "unknown" });
      await revokeKey(keyId);
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
      await grant(accountId, 100);
      const check = await eventually(
        () => ledger.checkKey(keyHash),
        (value) => value.status === "active" && value.balance !== 0,
      );
      expect(check).toMatchObject({ status: "active", balance: 100 });
    });

    test("a key revoked after its check is refused at the debit, and nothing is charged", async () => {
      const { accountId, keyId, keyHash } = await setUp(50);
      expect((await ledger.checkKey(keyHash)).status).toBe("active");
      await revokeKey(keyId);
      expect(await debit(accountId, usage(keyId, "late", 5))).toEqual({ error: "revoked_key" });
    });

    test("a debit records when its key was last used", async () => {
      const { accountId, keyId } = await setUp(100);
      expect(await fixture.lastUsedAt(keyId)).toBeNull();
      const before = Date.now();
      await debitTogether(accountId, [usage(keyId, "r1", 1), usage(keyId, "r2", 1)]);
      const lastUsed = await fixture.lastUsedAt(keyId);
      expect(lastUsed).toBeGreaterThanOrEqual(before);
      expect(lastUsed).toBeLessThanOrEqual(Date.now());
    });

    test("a refund gives a charge back once, with a grant naming the request; the books still balance", async () => {
      const { accountId, keyId } = await setUp(100);
      await debit(accountId, usage(keyId, "req_a", 21));
      await debit(accountId, usage(keyId, "req_b", 5));
      await Promise.all([refund(accountId, "req_a"), refund(accountId, "req_a")]);
      await refund(accountId, "req_a");
      expect(model.books(accountId)).toMatchObject({ balance: 95, refunds: [{ refundOf: "req_a", credits: 21 }] });
      expect(await ledger.balance(accountId)).toBe(95);
    });

    test("a refund leaves a request never charged, or another account's, alone", async () => {
      const { accountId, keyId } = await setUp(100);
      const other = await setUp(100);
      await debit(accountId, usage(keyId, "req_c", 7));
      await refund(accountId, "req_unknown");
      await refund(other.accountId, "req_c");
      expect(model.books(accountId)).toMatchObject({ balance: 93, grants: 100, refunds: [] });
      expect(model.books(other.accountId)).toMatchObject({ balance: 100, grants: 100, refunds: [] });
      expect(await rejection(ledger.refund("acct_missing", "req_c"))).toMatchObject({ code: "unknown_account" });
    });

    test("64 concurrent mixed debits crossing into refusal: grants = balance + charges, never negative", async () => {
      const { accountId, keyId } = await setUp(600);
      await grant(accountId, 100);
      const records = Array.from({ length: 64 }, (_, i) => usage(keyId, `r${i}`, costOf(i)));
      const pending: Promise<DebitOutcome>[] = [];
      for (const [i, record] of records.entries()) {
        pending.push(outcomeOf(ledger.debit(accountId, record)));
        // Over several event-loop turns, hence several batches.
        if (i % 16 === 15) await nextTurn();
      }
      // One ledger applies its queue in call order: the model's serial history is the exact one.
      expect(await Promise.all(pending)).toEqual(records.map((record) => model.debit(accountId, record, Date.now())));
      const books = model.books(accountId);
      expect(books.usageRows).toBeLessThan(64);
      expect(books.grants).toBe(books.balance + books.usageCredits);
    });

    test("two ledgers with connections of their own debiting one account together lose and double nothing", async () => {
      const { accountId, keyId } = await setUp(12_000);
      const peer = await fixture.openPeer();
      const settled: Promise<SettledDebit>[] = [];
      try {
        for (let i = 0; i < 800; i++) {
          const target = i % 2 === 0 ? ledger : peer.ledger;
          const record = usage(keyId, `r${i}`, costOf(i));
          settled.push(
            outcomeOf(target.debit(accountId, record)).then((outcome) => ({ accountId, usage: record, outcome })),
          );
          // Spread over time, so that the two ledgers' commits interleave rather than follow each other.
          if (i % 10 === 0) await Bun.sleep(1);
        }
        replaySerially(model, await Promise.all(settled), Date.now);
        const books = model.books(accountId);
        expect(books.usageRows).toBeLessThan(800);
        expect(books.grants).toBe(books.balance + books.usageCredits);
      } finally {
        await peer.close();
      }
    });
  });
}
