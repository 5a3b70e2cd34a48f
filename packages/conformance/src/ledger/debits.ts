// What one debit writes: exactly its cost and its usage row, or nothing when it is refused, a duplicate
// or invalid; debits made together share one commit, and a debit records its key's last use.
import { expect } from "bun:test";
import { type DebitOutcome, outcomeOf } from "../serial-ledger.ts";
import type { LedgerTest } from "./modelled-ledger.ts";
import { rejection, usage } from "./support.ts";

/** Debits one at a time and in one batch. */
export function debitConformance(ledgerTest: LedgerTest): void {
  ledgerTest(
    "a debit charges exactly its cost and records its usage, in one commit",
    async ({ ledger, model, setUp, debit }) => {
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
    },
  );

  ledgerTest(
    "a cost one above the balance is refused and writes nothing; the exact balance succeeds",
    async ({ fixture, model, setUp, debit }) => {
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
    },
  );

  ledgerTest(
    "a duplicate request id is rejected and not charged, also within one batch",
    async ({ ledger, setUp, debit, debitTogether }) => {
      const { accountId, keyId } = await setUp(100);
      await debit(accountId, usage(keyId, "r1", 10));
      expect(await debit(accountId, usage(keyId, "r1", 10))).toEqual({ error: "duplicate_request" });
      expect(await ledger.balance(accountId)).toBe(90);
      expect(await debitTogether(accountId, [usage(keyId, "r2", 10), usage(keyId, "r2", 10)])).toEqual([
        { ok: true, remaining: 80 },
        { error: "duplicate_request" },
      ]);
    },
  );

  ledgerTest(
    "invalid amounts, unknown accounts and unknown keys fail alone, without touching the batch",
    async ({ ledger, model, setUp }) => {
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
    },
  );

  ledgerTest(
    "concurrent debits share one commit, made before any of them resolves",
    async ({ fixture, ledger, model, setUp }) => {
      const { accountId, keyId } = await setUp(1000);
      const records = Array.from({ length: 100 }, (_, i) => usage(keyId, `r${i}`, 1));
      const debits = records.map((record) => ledger.debit(accountId, record));
      const seenAtFirstResolve = await debits[0]?.then(() => fixture.books(accountId));
      const outcomes = await Promise.all(debits);
      expect<DebitOutcome[]>(outcomes).toEqual(records.map((record) => model.debit(accountId, record, Date.now())));
      expect(seenAtFirstResolve?.usageRows).toBe(100);
    },
  );

  ledgerTest("a debit records when its key was last used", async ({ fixture, setUp, debitTogether }) => {
    const { accountId, keyId } = await setUp(100);
    expect(await fixture.lastUsedAt(keyId)).toBeNull();
    const before = Date.now();
    await debitTogether(accountId, [usage(keyId, "r1", 1), usage(keyId, "r2", 1)]);
    const lastUsed = await fixture.lastUsedAt(keyId);
    expect(lastUsed).toBeGreaterThanOrEqual(before);
    expect(lastUsed).toBeLessThanOrEqual(Date.now());
  });
}
