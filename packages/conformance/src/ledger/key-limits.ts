// A key's own limit (per day or in total) and expiry, checked at the debit against the account's
// balance, across UTC days, after refunds and under concurrent debits from two processes.
import { describe, expect } from "bun:test";
import type { DebitOutcome } from "../serial-ledger.ts";
import { outcomeOf, replaySerially } from "../serial-ledger.ts";
import type { LedgerTest } from "./modelled-ledger.ts";
import { eventually, usage } from "./support.ts";

/** A key's own limit and expiry. */
export function keyLimitConformance(ledgerTest: LedgerTest): void {
  describe("a key's own limit and expiry", () => {
    const DAY = 86_400_000;

    ledgerTest(
      "a total limit charges up to it; past it the debit is refused as key_limit with what is left",
      async ({ ledger, setUp, debit }) => {
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
      },
    );

    ledgerTest(
      "a key refused for its own limit leaves the account's other keys their balance",
      async ({ ledger, setUp, createKey, debit }) => {
        const { accountId, keyId } = await setUp(100, { limit: { credits: 5, per: "total" } });
        const other = await createKey(accountId);
        expect(await ledger.checkKey(other.keyHash)).toMatchObject({ status: "active", balance: 100 });
        expect(await debit(accountId, usage(keyId, "over", 6))).toMatchObject({ reason: "key_limit", remaining: 5 });
        // What the limited key had left is not the account's balance, which the other key still spends.
        expect(await ledger.checkKey(other.keyHash)).toMatchObject({ status: "active", balance: 100 });
      },
    );

    ledgerTest("the refusal names whichever leaves less, the balance or the key's limit", async ({ setUp, debit }) => {
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

    ledgerTest("a day limit starts over on the next UTC day", async ({ fixture, setUp, debit }) => {
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

    ledgerTest("a refunded charge counts against the limit no more", async ({ setUp, debit, refund }) => {
      const { accountId, keyId } = await setUp(100, { limit: { credits: 10, per: "total" } });
      await debit(accountId, usage(keyId, "gone", 8));
      expect(await debit(accountId, usage(keyId, "blocked", 5))).toMatchObject({ reason: "key_limit" });
      await refund(accountId, "gone");
      expect(await debit(accountId, usage(keyId, "after", 10))).toEqual({ ok: true, remaining: 90 });
    });

    ledgerTest(
      "an expired key is active until its time, then refused at the debit, uncharged",
      async ({ fixture, ledger, setUp, debit }) => {
        const now = Date.now();
        const { accountId, keyId, keyHash } = await setUp(100, { expiresAt: now + DAY });
        expect(await ledger.checkKey(keyHash)).toMatchObject({ status: "active", expiresAt: now + DAY });
        expect(await debit(accountId, usage(keyId, "before", 1))).toMatchObject({ ok: true });
        const late = { through: fixture.ledgerAt(() => now + DAY), at: () => now + DAY };
        expect(await debit(accountId, usage(keyId, "after", 1), late)).toEqual({ error: "expired_key" });
      },
    );

    ledgerTest(
      "64 concurrent debits, from this ledger and another process's, never take a key past its limit",
      async ({ fixture, ledger, model, setUp }) => {
        const { accountId, keyId } = await setUp(10_000, { limit: { credits: 50, per: "day" } });
        const peer = await fixture.openPeer();
        try {
          const records = Array.from({ length: 64 }, (_, i) => usage(keyId, `c${i}`, 1 + (i % 3)));
          const outcomes = await Promise.all(
            records.map((record, i) => outcomeOf((i % 2 === 0 ? ledger : peer.ledger).debit(accountId, record))),
          );
          replaySerially(
            model,
            records.map((record, i) => ({
              accountId,
              usage: record,
              outcome: outcomes[i] as DebitOutcome,
              via: i % 2 === 0 ? "ledger" : "peer",
            })),
            Date.now,
            fixture.crossProcessRemaining,
          );
          // Refused only for the key's limit, and only when what it left could not cover the debit.
          expect(outcomes.every((outcome) => "ok" in outcome && (outcome.ok || outcome.reason === "key_limit"))).toBe(
            true,
          );
          expect(model.books(accountId).usageCredits).toBeGreaterThan(47);
        } finally {
          await peer.close();
        }
      },
    );
  });
}
