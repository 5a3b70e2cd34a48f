// Accounts: opened by the operator or by a first sign-in (once, even from two processes at the same
// moment), their grants and the most a balance holds, and the low-balance warning.
import { describe, expect } from "bun:test";
import { hashApiKey, MAX_BALANCE } from "@social/core";
import { type AccountsTest, ledgerErrorOf } from "./suite.ts";

/** Opening accounts, by the operator or by a first sign-in, and granting them credits. */
export function openingConformance(accountsTest: AccountsTest): void {
  describe("accounts", () => {
    accountsTest(
      "a new account starts with 1000 credits, recorded as a grant, and a working key",
      async ({ accounts, fixture }) => {
        const before = Date.now();
        const { account, key } = await accounts.openAccount("Ada");
        expect(account).toEqual({
          id: expect.stringMatching(/^acct_[0-9A-Za-z]{16}$/),
          name: "Ada",
          balance: 1000,
          createdAt: expect.any(Number),
          oidcIssuer: null,
          oidcSubject: null,
          lowBalanceWarning: null,
        });
        expect(account.createdAt).toBeGreaterThanOrEqual(before);
        expect(await accounts.account(account.id)).toEqual(account);
        expect(await fixture.grants(account.id)).toEqual([{ credits: 1000, reason: "starting credits" }]);
        expect(await fixture.ledger(Date.now).checkKey(await hashApiKey(key.key))).toEqual({
          status: "active",
          accountId: account.id,
          keyId: key.keyId,
          balance: 1000,
        });
        expect((await accounts.listKeys(account.id)).map((info) => info.name)).toEqual(["Ada"]);
      },
    );

    accountsTest("an account opened with 0 credits has no grant row", async ({ accounts, fixture }) => {
      const { account } = await accounts.openAccount("Empty", 0);
      expect(account.balance).toBe(0);
      expect(await fixture.grants(account.id)).toEqual([]);
    });

    accountsTest("an invalid starting amount opens nothing", async ({ accounts }) => {
      for (const amount of [-1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1]) {
        expect(await ledgerErrorOf(accounts.openAccount("Bad", amount))).toBe("invalid_amount");
      }
      expect(await accounts.listKeys()).toEqual([]);
    });

    accountsTest("an unknown account is undefined", async ({ accounts }) => {
      expect(await accounts.account("acct_missing")).toBeUndefined();
    });

    accountsTest("a grant raises the balance and is recorded with its reason", async ({ accounts, fixture }) => {
      const { account } = await accounts.openAccount("Ada", 10);
      expect(await accounts.grantCredits(account.id, 25)).toBe(35);
      expect(await accounts.grantCredits(account.id, 5, "apology")).toBe(40);
      expect((await accounts.account(account.id))?.balance).toBe(40);
      expect(await fixture.grants(account.id)).toEqual([
        { credits: 10, reason: "starting credits" },
        { credits: 25, reason: "operator grant" },
        { credits: 5, reason: "apology" },
      ]);
    });

    accountsTest("grants to unknown accounts or of invalid amounts write nothing", async ({ accounts, fixture }) => {
      const { account } = await accounts.openAccount("Ada", 10);
      expect(await ledgerErrorOf(accounts.grantCredits("acct_missing", 5))).toBe("unknown_account");
      for (const amount of [0, -5, 1.5, Number.NaN]) {
        expect(await ledgerErrorOf(accounts.grantCredits(account.id, amount))).toBe("invalid_amount");
      }
      expect(await fixture.grants(account.id)).toEqual([{ credits: 10, reason: "starting credits" }]);
      expect(await fixture.grants("acct_missing")).toEqual([]);
      expect((await accounts.account(account.id))?.balance).toBe(10);
    });

    accountsTest(
      "a grant past the most an account can hold is refused by name and writes nothing",
      async ({ accounts, fixture }) => {
        const { account } = await accounts.openAccount("Ada", 10);
        const refusal = accounts.grantCredits(account.id, MAX_BALANCE);
        expect(await ledgerErrorOf(refusal)).toBe("balance_limit");
        await expect(refusal).rejects.toThrow(`${account.id} holds 10 credits: ${MAX_BALANCE} more would pass`);
        expect(await accounts.grantCredits(account.id, MAX_BALANCE - 10)).toBe(MAX_BALANCE);
        expect(await ledgerErrorOf(accounts.grantCredits(account.id, 1))).toBe("balance_limit");
        expect((await accounts.account(account.id))?.balance).toBe(MAX_BALANCE);
        expect(await fixture.grants(account.id)).toEqual([
          { credits: 10, reason: "starting credits" },
          { credits: MAX_BALANCE - 10, reason: "operator grant" },
        ]);
      },
    );

    accountsTest(
      "an identity-provider subject gets one account with 1000 credits, found again later",
      async ({ accounts, fixture }) => {
        const first = await accounts.accountForIdentity("https://idp.example", "user-1", "Ada");
        expect(first).toMatchObject({
          name: "Ada",
          balance: 1000,
          oidcIssuer: "https://idp.example",
          oidcSubject: "user-1",
        });
        expect(await accounts.accountForIdentity("https://idp.example", "user-1", "Ada L.")).toEqual(first);
        const otherIssuer = await accounts.accountForIdentity("https://other.example", "user-1", "Ada");
        expect(otherIssuer.id).not.toBe(first.id);
        expect(await fixture.grants(first.id)).toEqual([{ credits: 1000, reason: "sign-up credits" }]);
        // A first sign-in opens no key: the person creates their own on the dashboard.
        expect(await accounts.listKeys(first.id)).toEqual([]);
      },
    );

    accountsTest(
      "concurrent first sign-ins of one identity, from two processes, open one account",
      async ({ accounts, fixture }) => {
        const signIns = Array.from({ length: 12 }, (_, i) =>
          (i % 2 === 0 ? accounts : fixture.peer).accountForIdentity("https://idp.example", "racer", `Racer ${i}`),
        );
        const opened = await Promise.all(signIns);
        const ids = new Set(opened.map((account) => account.id));
        expect(ids.size).toBe(1);
        const [id] = ids;
        expect(await fixture.grants(id ?? "")).toEqual([{ credits: 1000, reason: "sign-up credits" }]);
        expect((await accounts.account(id ?? ""))?.balance).toBe(1000);
      },
    );
  });

  describe("grants and the low-balance warning", () => {
    accountsTest(
      "grants come newest first, a refund naming the charge it gives back",
      async ({ accounts, fixture }) => {
        const { account, key } = await accounts.openAccount("Ada", 10);
        await accounts.grantCredits(account.id, 25, "top-up");
        const ledger = fixture.ledger(Date.now);
        await ledger.debit(account.id, { requestId: "gone", keyId: key.keyId, endpoint: "tweet", credits: 4 });
        await ledger.refund(account.id, "gone");
        const grants = await accounts.grants(account.id, 10);
        expect(grants.map(({ credits, reason, refundOf }) => ({ credits, reason, refundOf }))).toEqual([
          { credits: 4, reason: "refund: answer not delivered", refundOf: "gone" },
          { credits: 25, reason: "top-up", refundOf: null },
          { credits: 10, reason: "starting credits", refundOf: null },
        ]);
        expect(await accounts.grants(account.id, 1)).toHaveLength(1);
        // The last top-up is the one the warning's default is a share of, not the refund after it.
        expect(await accounts.lastTopUp(account.id)).toMatchObject({ credits: 25, reason: "top-up", refundOf: null });
        expect(await accounts.lastTopUp("acct_missing")).toBeUndefined();
      },
    );

    accountsTest(
      "a warning threshold is set, read with the account, and reset to the default",
      async ({ accounts }) => {
        const { account } = await accounts.openAccount("Ada");
        await accounts.setLowBalanceWarning(account.id, 150);
        expect((await accounts.account(account.id))?.lowBalanceWarning).toBe(150);
        await accounts.setLowBalanceWarning(account.id, null);
        expect((await accounts.account(account.id))?.lowBalanceWarning).toBeNull();
        expect(await ledgerErrorOf(accounts.setLowBalanceWarning(account.id, -1))).toBe("invalid_amount");
        expect(await ledgerErrorOf(accounts.setLowBalanceWarning("acct_missing", 5))).toBe("unknown_account");
      },
    );
  });
}
