// Many debits at once, from one ledger over several batches and from two with connections of their
// own (two processes): nothing lost, doubled or overdrawn, as the serial model replays them.
import { expect } from "bun:test";
import { type DebitOutcome, outcomeOf, replaySerially, type SettledDebit } from "../serial-ledger.ts";
import type { LedgerTest } from "./modelled-ledger.ts";
import { costOf, nextTurn, usage } from "./support.ts";

/** Concurrent debits crossing into refusal. */
export function concurrencyConformance(ledgerTest: LedgerTest): void {
  ledgerTest(
    "64 concurrent mixed debits crossing into refusal: grants = balance + charges, never negative",
    async ({ ledger, model, setUp, grant }) => {
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
    },
  );

  ledgerTest(
    "two ledgers with connections of their own debiting one account together lose and double nothing",
    async ({ fixture, ledger, model, setUp }) => {
      const { accountId, keyId } = await setUp(12_000);
      const peer = await fixture.openPeer();
      const settled: Promise<SettledDebit>[] = [];
      try {
        for (let i = 0; i < 800; i++) {
          const target = i % 2 === 0 ? ledger : peer.ledger;
          const record = usage(keyId, `r${i}`, costOf(i));
          settled.push(
            outcomeOf(target.debit(accountId, record)).then((outcome) => ({
              accountId,
              usage: record,
              outcome,
              via: target === ledger ? "ledger" : "peer",
            })),
          );
          // Spread over time, so that the two ledgers' commits interleave rather than follow each other.
          if (i % 10 === 0) await Bun.sleep(1);
        }
        replaySerially(model, await Promise.all(settled), Date.now, fixture.crossProcessRemaining);
        const books = model.books(accountId);
        expect(books.usageRows).toBeLessThan(800);
        expect(books.grants).toBe(books.balance + books.usageCredits);
      } finally {
        await peer.close();
      }
    },
  );
}
