// checkKey, the read every request starts with: the balance it shows, and revocations and grants,
// which reach it shortly after their commit.
import { expect } from "bun:test";
import type { LedgerTest } from "./modelled-ledger.ts";
import { eventually, usage } from "./support.ts";

/** Key checks, and a key revoked between its check and its debit. */
export function keyCheckConformance(ledgerTest: LedgerTest): void {
  ledgerTest(
    "checkKey answers active with the balance, revoked, or unknown",
    async ({ ledger, setUp, debit, revokeKey }) => {
      const { accountId, keyId, keyHash } = await setUp(50);
      await debit(accountId, usage(keyId, "r1", 8));
      expect(await ledger.checkKey(keyHash)).toEqual({ status: "active", accountId, keyId, balance: 42 });
      expect(await ledger.checkKey("0".repeat(64))).toEqual({ status: "unknown" });
      expect(await ledger.checkKey("not a digest")).toEqual({ status: "unknown" });
      expect(await ledger.checkKey(keyHash.toUpperCase())).toEqual({ status: "unknown" });
      await revokeKey(keyId);
      // Active keys are kept in memory until the adapter hears of the change: PostgreSQL's notification
      // arrives a moment after the commit, SQLite reads its counter on the next turn.
      const check = await eventually(
        () => ledger.checkKey(keyHash),
        (value) => value.status !== "active",
      );
      expect(check).toEqual({ status: "revoked", keyId });
    },
  );

  ledgerTest(
    "this process's own charge and refund show in its very next check",
    async ({ ledger, setUp, debit, refund }) => {
      const { accountId, keyId, keyHash } = await setUp(100, { limit: { credits: 10, per: "total" } });
      expect(await ledger.checkKey(keyHash)).toMatchObject({ balance: 100, allowance: { remaining: 10 } });
      await debit(accountId, usage(keyId, "r1", 10));
      expect(await ledger.checkKey(keyHash)).toMatchObject({ balance: 90, allowance: { remaining: 0 } });
      // A client whose answer was lost asks again at once: the refund must not leave it a 402.
      await refund(accountId, "r1");
      expect(await ledger.checkKey(keyHash)).toMatchObject({ balance: 100, allowance: { remaining: 10 } });
    },
  );

  ledgerTest("credits granted show in the next checks of the account's keys", async ({ ledger, setUp, grant }) => {
    const { accountId, keyHash } = await setUp(0);
    expect(await ledger.checkKey(keyHash)).toMatchObject({ status: "active", balance: 0 });
    await grant(accountId, 100);
    const check = await eventually(
      () => ledger.checkKey(keyHash),
      (value) => value.status === "active" && value.balance !== 0,
    );
    expect(check).toMatchObject({ status: "active", balance: 100 });
  });

  ledgerTest(
    "a key revoked after its check is refused at the debit, and nothing is charged",
    async ({ ledger, setUp, debit, revokeKey }) => {
      const { accountId, keyId, keyHash } = await setUp(50);
      expect((await ledger.checkKey(keyHash)).status).toBe("active");
      await revokeKey(keyId);
      expect(await debit(accountId, usage(keyId, "late", 5))).toEqual({ error: "revoked_key" });
    },
  );
}
