// Refunds: a charge given back once, as a grant that names it, and nothing given for a request that
// was never charged to that account.
import { expect } from "bun:test";
import type { LedgerTest } from "./modelled-ledger.ts";
import { rejection, usage } from "./support.ts";

/** Refunds of charges. */
export function refundConformance(ledgerTest: LedgerTest): void {
  ledgerTest(
    "a refund gives a charge back once, with a grant naming the request; the books still balance",
    async ({ ledger, model, setUp, debit, refund }) => {
      const { accountId, keyId } = await setUp(100);
      await debit(accountId, usage(keyId, "req_a", 21));
      await debit(accountId, usage(keyId, "req_b", 5));
      await Promise.all([refund(accountId, "req_a"), refund(accountId, "req_a")]);
      await refund(accountId, "req_a");
      expect(model.books(accountId)).toMatchObject({ balance: 95, refunds: [{ refundOf: "req_a", credits: 21 }] });
      expect(await ledger.balance(accountId)).toBe(95);
    },
  );

  ledgerTest(
    "a refund leaves a request never charged, or another account's, alone",
    async ({ ledger, model, setUp, debit, refund }) => {
      const { accountId, keyId } = await setUp(100);
      const other = await setUp(100);
      await debit(accountId, usage(keyId, "req_c", 7));
      await refund(accountId, "req_unknown");
      await refund(other.accountId, "req_c");
      expect(model.books(accountId)).toMatchObject({ balance: 93, grants: 100, refunds: [] });
      expect(model.books(other.accountId)).toMatchObject({ balance: 100, grants: 100, refunds: [] });
      expect(await rejection(ledger.refund("acct_missing", "req_c"))).toMatchObject({ code: "unknown_account" });
    },
  );
}
