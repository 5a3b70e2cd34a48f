// The Ledger port's contract, run against every adapter: what one debit, refusal, duplicate and refund
// write, and that concurrent debits, from one ledger or from two with connections of their own (two
// processes), never lose, double or overdraw a charge. Setup and checks go through the fixture, so the
// suite knows nothing of either database. The reference is a serial ledger in memory (./serial-ledger.ts):
// every debit's outcome is the one it gives, and after each test every account's books are its books
// (./ledger/modelled-ledger.ts). Each topic is a module of ./ledger/.
import { afterEach, beforeEach, describe, test } from "bun:test";
import { concurrencyConformance } from "./ledger/concurrency.ts";
import { debitConformance } from "./ledger/debits.ts";
import { keyCheckConformance } from "./ledger/key-checks.ts";
import { keyLimitConformance } from "./ledger/key-limits.ts";
import { type LedgerTest, ModelledLedger } from "./ledger/modelled-ledger.ts";
import { refundConformance } from "./ledger/refunds.ts";
import type { LedgerFixture } from "./ledger/support.ts";

export { costOf, type LedgerFixture } from "./ledger/support.ts";

export function ledgerConformance(name: string, open: () => Promise<LedgerFixture>): void {
  describe(`Ledger conformance: ${name}`, () => {
    let run: ModelledLedger;

    beforeEach(async () => {
      run = new ModelledLedger(await open());
    });

    afterEach(() => run.closeChecked());

    const ledgerTest: LedgerTest = (title, body) => test(title, () => body(run));

    keyLimitConformance(ledgerTest);
    debitConformance(ledgerTest);
    keyCheckConformance(ledgerTest);
    refundConformance(ledgerTest);
    concurrencyConformance(ledgerTest);
  });
}
