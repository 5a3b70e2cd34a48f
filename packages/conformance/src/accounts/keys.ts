// API keys: returned once and stored only as a digest, revoked by key, id or prefix, listed without
// their secrets, and never more active per account than the cap, even when two processes create keys
// at the same moment.
import { describe, expect } from "bun:test";
import { type Accounts, hashApiKey, LedgerError, MAX_ACTIVE_KEYS_PER_ACCOUNT } from "@social/core";
import { type AccountsTest, ledgerErrorOf } from "./suite.ts";

/** Keys: made, shown, revoked, and held to the cap on active keys. */
export function keysConformance(accountsTest: AccountsTest): void {
  describe("keys", () => {
    accountsTest("a key is returned once and stored only as its digest and prefix", async ({ accounts, fixture }) => {
      const { account } = await accounts.openAccount("Ada");
      const created = await accounts.createKey(account.id, "laptop");
      expect(created.key).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
      expect(created.keyId).toMatch(/^key_[0-9A-Za-z]{16}$/);
      expect(created.prefix).toBe(created.key.slice(0, 12));
      expect(await fixture.ledger(Date.now).checkKey(await hashApiKey(created.key))).toEqual({
        status: "active",
        accountId: account.id,
        keyId: created.keyId,
        balance: 1000,
      });
      const stored = await fixture.storedKeys();
      expect(stored).toContain(created.prefix);
      expect(stored).toContain(await hashApiKey(created.key));
      expect(stored).not.toContain(created.key);
      expect(stored).not.toContain(created.key.slice(12));
    });

    accountsTest(
      "a key can be revoked by key, by id or by prefix, and then checks as revoked",
      async ({ accounts, fixture }) => {
        const { account } = await accounts.openAccount("Ada");
        const ledger = fixture.ledger(Date.now);
        const byKey = await accounts.createKey(account.id, "a");
        const byId = await accounts.createKey(account.id, "b");
        const byPrefix = await accounts.createKey(account.id, "c");
        const before = Date.now();
        const revoked = await accounts.revokeKey(byKey.key);
        expect(revoked).toEqual({
          id: byKey.keyId,
          accountId: account.id,
          name: "a",
          prefix: byKey.prefix,
          createdAt: expect.any(Number),
          revokedAt: expect.any(Number),
          lastUsedAt: null,
          allowance: null,
          expiresAt: null,
        });
        expect(revoked.revokedAt).toBeGreaterThanOrEqual(before);
        expect(await accounts.key(byKey.keyId)).toEqual(revoked);
        expect(await accounts.key("key_missing")).toBeUndefined();
        expect((await accounts.revokeKey(byId.keyId)).id).toBe(byId.keyId);
        expect((await accounts.revokeKey(byPrefix.prefix)).id).toBe(byPrefix.keyId);
        for (const { key, keyId } of [byKey, byId, byPrefix]) {
          expect(await ledger.checkKey(await hashApiKey(key))).toEqual({ status: "revoked", keyId });
        }
      },
    );

    accountsTest("a key keeps its limit and expiry, shown with what the limit leaves", async ({ accounts }) => {
      const { account } = await accounts.openAccount("Ada", 100, { limit: { credits: 9, per: "total" } });
      const expiresAt = Date.UTC(2099, 0, 31);
      const made = await accounts.createKey(account.id, "agent", { limit: { credits: 5, per: "day" }, expiresAt });
      const [first, second] = await accounts.listKeys(account.id);
      expect(first).toMatchObject({ allowance: { credits: 9, per: "total", remaining: 9 }, expiresAt: null });
      expect(second).toMatchObject({
        id: made.keyId,
        allowance: { credits: 5, per: "day", remaining: 5 },
        expiresAt,
      });
      expect(await accounts.key(made.keyId)).toEqual(second);
      expect(await ledgerErrorOf(accounts.createKey(account.id, "x", { limit: { credits: 0, per: "day" } }))).toBe(
        "invalid_amount",
      );
    });

    accountsTest(
      "a key's name, limit and expiry change; its spend stays, and a revoked key stays as it was",
      async ({ accounts, fixture }) => {
        const { account } = await accounts.openAccount("Ada", 100);
        const made = await accounts.createKey(account.id, "agent", { limit: { credits: 50, per: "total" } });
        await fixture
          .ledger(Date.now)
          .debit(account.id, { requestId: "r1", keyId: made.keyId, endpoint: "tweet", credits: 8 });
        const expiresAt = Date.UTC(2099, 0, 31);
        const changed = await accounts.updateKey(made.keyId, {
          name: "agent (staging)",
          limit: { credits: 5, per: "total" },
          expiresAt,
        });
        expect(changed).toMatchObject({
          id: made.keyId,
          name: "agent (staging)",
          allowance: { credits: 5, per: "total", remaining: 0 },
          expiresAt,
          revokedAt: null,
        });
        expect(await accounts.key(made.keyId)).toEqual(changed);
        expect(await fixture.ledger(Date.now).checkKey(await hashApiKey(made.key))).toMatchObject({
          status: "active",
          allowance: { credits: 5, per: "total", remaining: 0 },
          expiresAt,
        });
        const per = await accounts.updateKey(made.keyId, { name: "agent", limit: { credits: 10, per: "day" } });
        expect(per).toMatchObject({ allowance: { credits: 10, per: "day", remaining: 2 }, expiresAt: null });
        expect((await accounts.updateKey(made.keyId, { name: "agent" })).allowance).toBeNull();

        expect(
          await ledgerErrorOf(accounts.updateKey(made.keyId, { name: "x", limit: { credits: 0, per: "day" } })),
        ).toBe("invalid_amount");
        expect(await ledgerErrorOf(accounts.updateKey("key_missing", { name: "x" }))).toBe("unknown_key");
        await accounts.revokeKey(made.keyId);
        expect(await ledgerErrorOf(accounts.updateKey(made.keyId, { name: "revived" }))).toBe("revoked_key");
        expect(await accounts.key(made.keyId)).toMatchObject({ name: "agent", allowance: null });
      },
    );

    accountsTest("revoking twice keeps the first revocation time", async ({ accounts }) => {
      const { account } = await accounts.openAccount("Ada");
      const { keyId } = await accounts.createKey(account.id, "a");
      const first = await accounts.revokeKey(keyId);
      await Bun.sleep(5);
      expect((await accounts.revokeKey(keyId)).revokedAt).toBe(first.revokedAt);
    });

    accountsTest(
      "revoking an unknown key or an ambiguous prefix fails and changes nothing",
      async ({ accounts, fixture }) => {
        const { account } = await accounts.openAccount("Ada");
        const created = await accounts.createKey(account.id, "a");
        await fixture.insertKeyWithPrefix(account.id, created.prefix);
        expect(await ledgerErrorOf(accounts.revokeKey("key_missing"))).toBe("unknown_key");
        expect(await ledgerErrorOf(accounts.revokeKey("sk_live_00000000000000000000000000000000"))).toBe("unknown_key");
        expect(await ledgerErrorOf(accounts.revokeKey("sk_live_nope"))).toBe("unknown_key");
        expect(await ledgerErrorOf(accounts.revokeKey(created.prefix))).toBe("ambiguous_key");
        expect((await accounts.listKeys()).every((key) => key.revokedAt === null)).toBe(true);
      },
    );

    accountsTest(
      "keys are listed per account or all together, oldest first, without their secrets",
      async ({ accounts }) => {
        const ada = (await accounts.openAccount("Ada", 0)).account;
        const bob = (await accounts.openAccount("Bob", 0)).account;
        const adaKeys = await accounts.listKeys(ada.id);
        const bobKeys = await accounts.listKeys(bob.id);
        // Many keys within a millisecond or two: the order is still the order of creation.
        const made = [];
        for (let i = 0; i < 8; i++) made.push(await accounts.createKey(i % 2 === 0 ? ada.id : bob.id, `k${i}`));
        expect((await accounts.listKeys(ada.id)).map((key) => key.id)).toEqual([
          ...adaKeys.map((key) => key.id),
          ...made.filter((_, i) => i % 2 === 0).map((key) => key.keyId),
        ]);
        expect((await accounts.listKeys()).map((key) => key.id)).toEqual([
          ...adaKeys.map((key) => key.id),
          ...bobKeys.map((key) => key.id),
          ...made.map((key) => key.keyId),
        ]);
        const listed = (await accounts.listKeys(bob.id)).at(-1);
        const last = made.at(-1);
        expect(listed).toEqual({
          id: last?.keyId ?? "",
          accountId: bob.id,
          name: "k7",
          prefix: last?.prefix ?? "",
          createdAt: expect.any(Number),
          revokedAt: null,
          lastUsedAt: null,
          allowance: null,
          expiresAt: null,
        });
        expect(JSON.stringify(await accounts.listKeys())).not.toContain(last?.key.slice(12));
        expect(await accounts.listKeys("acct_missing")).toEqual([]);
      },
    );

    accountsTest("a key's last use is what the ledger recorded", async ({ accounts, fixture }) => {
      const { account, key } = await accounts.openAccount("Ada");
      const at = Date.UTC(2025, 5, 30, 12);
      await fixture
        .ledger(() => at)
        .debit(account.id, {
          requestId: "r1",
          keyId: key.keyId,
          endpoint: "/v1/tweets/{id}",
          credits: 1,
        });
      expect((await accounts.listKeys(account.id))[0]?.lastUsedAt).toBe(at);
    });

    accountsTest("a key for an unknown account is refused", async ({ accounts }) => {
      expect(await ledgerErrorOf(accounts.createKey("acct_missing", "a"))).toBe("unknown_account");
    });
  });

  describe("the cap on active keys", () => {
    const activeKeys = async (accounts: Accounts, accountId: string) =>
      (await accounts.listKeys(accountId)).filter((key) => key.revokedAt === null);

    accountsTest(
      `an account holds at most ${MAX_ACTIVE_KEYS_PER_ACCOUNT} active keys; revoking one makes room`,
      async ({ accounts }) => {
        const { account, key: first } = await accounts.openAccount("Ada");
        for (let i = 1; i < MAX_ACTIVE_KEYS_PER_ACCOUNT; i++) await accounts.createKey(account.id, `k${i}`);
        expect(await ledgerErrorOf(accounts.createKey(account.id, "one too many"))).toBe("too_many_keys");
        expect(await accounts.listKeys(account.id)).toHaveLength(MAX_ACTIVE_KEYS_PER_ACCOUNT);
        expect((await accounts.createKey((await accounts.openAccount("Bob")).account.id, "b")).key).toBeString();

        await accounts.revokeKey(first.keyId);
        await accounts.createKey(account.id, "replacement");
        expect(await activeKeys(accounts, account.id)).toHaveLength(MAX_ACTIVE_KEYS_PER_ACCOUNT);
        expect(await ledgerErrorOf(accounts.createKey(account.id, "one too many"))).toBe("too_many_keys");
      },
    );

    accountsTest("two processes creating keys at once never exceed the cap together", async ({ accounts, fixture }) => {
      const { account } = await accounts.openAccount("Ada", 0);
      const attempts = Array.from({ length: 2 * MAX_ACTIVE_KEYS_PER_ACCOUNT }, (_, i) =>
        (i % 2 === 0 ? accounts : fixture.peer).createKey(account.id, `race ${i}`).then(
          () => "created",
          (error: unknown) => (error instanceof LedgerError ? error.code : error),
        ),
      );
      const outcomes = await Promise.all(attempts);
      // The account's own first key counts too.
      expect(outcomes.filter((outcome) => outcome === "created")).toHaveLength(MAX_ACTIVE_KEYS_PER_ACCOUNT - 1);
      expect(outcomes.filter((outcome) => outcome !== "created")).toEqual(
        Array(MAX_ACTIVE_KEYS_PER_ACCOUNT + 1).fill("too_many_keys"),
      );
      expect(await activeKeys(accounts, account.id)).toHaveLength(MAX_ACTIVE_KEYS_PER_ACCOUNT);
    });
  });
}
