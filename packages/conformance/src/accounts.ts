// The Accounts port's contract, run against every adapter: accounts and their grants, keys and the cap
// on active keys, usage summaries, stored secrets, and what stays true when two processes (two ports
// with connections of their own) create keys, sign in or read secrets at the same moment.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Accounts, Ledger, LoggedRequest, RequestLog, RequestLogQuery } from "@social/core";
import { hashApiKey, LedgerError, MAX_ACTIVE_KEYS_PER_ACCOUNT, MAX_BALANCE } from "@social/core";

export interface AccountsFixture {
  accounts: Accounts;
  /** The same database through connections of its own, as a second process reaches it. */
  peer: Accounts;
  /** A ledger on the same database on the given clock: it writes the usage rows the summaries read. */
  ledger(now: () => number): Ledger;
  /** The request log on the same database: it writes the uncharged answers the log reads. */
  requestLog(): RequestLog;
  /** One account's grants, oldest first, read outside the port. */
  grants(accountId: string): Promise<{ credits: number; reason: string }[]>;
  /** Every stored value of the key table as text: where a secret that leaked into storage would show. */
  storedKeys(): Promise<string>;
  /** A key row written outside the port under a chosen prefix, as two keys that share one leave. */
  insertKeyWithPrefix(accountId: string, prefix: string): Promise<void>;
  close(): Promise<void>;
}

const DAY = 86_400_000;

async function ledgerErrorOf(work: Promise<unknown>): Promise<LedgerError["code"]> {
  try {
    await work;
  } catch (error) {
    expect(error).toBeInstanceOf(LedgerError);
    return (error as LedgerError).code;
  }
  throw new Error("expected a LedgerError");
}

const utcDay = (time: number) => new Date(time).toISOString().slice(0, 10);

export function accountsConformance(adapter: string, open: () => Promise<AccountsFixture>): void {
  describe(`Accounts on ${adapter}`, () => {
    let fixture: AccountsFixture;
    let accounts: Accounts;

    beforeEach(async () => {
      fixture = await open();
      accounts = fixture.accounts;
    });

    afterEach(() => fixture.close());

    const activeKeys = async (accountId: string) =>
      (await accounts.listKeys(accountId)).filter((key) => key.revokedAt === null);

    describe("accounts", () => {
      test("a new account starts with 1000 credits, recorded as a grant, and a working key", async () => {
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
      });

      test("an account opened with 0 credits has no grant row", async () => {
        const { account } = await accounts.openAccount("Empty", 0);
        expect(account.balance).toBe(0);
        expect(await fixture.grants(account.id)).toEqual([]);
      });

      test("an invalid starting amount opens nothing", async () => {
        for (const amount of [-1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1]) {
          expect(await ledgerErrorOf(accounts.openAccount("Bad", amount))).toBe("invalid_amount");
        }
        expect(await accounts.listKeys()).toEqual([]);
      });

      test("an unknown account is undefined", async () => {
        expect(await accounts.account("acct_missing")).toBeUndefined();
      });

      test("a grant raises the balance and is recorded with its reason", async () => {
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

      test("grants to unknown accounts or of invalid amounts write nothing", async () => {
        const { account } = await accounts.openAccount("Ada", 10);
        expect(await ledgerErrorOf(accounts.grantCredits("acct_missing", 5))).toBe("unknown_account");
        for (const amount of [0, -5, 1.5, Number.NaN]) {
          expect(await ledgerErrorOf(accounts.grantCredits(account.id, amount))).toBe("invalid_amount");
        }
        expect(await fixture.grants(account.id)).toEqual([{ credits: 10, reason: "starting credits" }]);
        expect(await fixture.grants("acct_missing")).toEqual([]);
        expect((await accounts.account(account.id))?.balance).toBe(10);
      });

      test("a grant past the most an account can hold is refused by name and writes nothing", async () => {
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
      });

      test("an identity-provider subject gets one account with 1000 credits, found again later", async () => {
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
      });

      test("concurrent first sign-ins of one identity, from two processes, open one account", async () => {
        const signIns = Array.from({ length: 12 }, (_, i) =>
          (i % 2 === 0 ? accounts : fixture.peer).accountForIdentity("https://idp.example", "racer", `Racer ${i}`),
        );
        const opened = await Promise.all(signIns);
        const ids = new Set(opened.map((account) => account.id));
        expect(ids.size).toBe(1);
        const [id] = ids;
        expect(await fixture.grants(id ?? "")).toEqual([{ credits: 1000, reason: "sign-up credits" }]);
        expect((await accounts.account(id ?? ""))?.balance).toBe(1000);
      });
    });

    describe("keys", () => {
      test("a key is returned once and stored only as its digest and prefix", async () => {
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

      test("a key can be revoked by key, by id or by prefix, and then checks as revoked", async () => {
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
      });

      test("a key keeps its limit and expiry, shown with what the limit leaves", async () => {
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

      test("revoking twice keeps the first revocation time", async () => {
        const { account } = await accounts.openAccount("Ada");
        const { keyId } = await accounts.createKey(account.id, "a");
        const first = await accounts.revokeKey(keyId);
        await Bun.sleep(5);
        expect((await accounts.revokeKey(keyId)).revokedAt).toBe(first.revokedAt);
      });

      test("revoking an unknown key or an ambiguous prefix fails and changes nothing", async () => {
        const { account } = await accounts.openAccount("Ada");
        const created = await accounts.createKey(account.id, "a");
        await fixture.insertKeyWithPrefix(account.id, created.prefix);
        expect(await ledgerErrorOf(accounts.revokeKey("key_missing"))).toBe("unknown_key");
        expect(await ledgerErrorOf(accounts.revokeKey("sk_live_00000000000000000000000000000000"))).toBe("unknown_key");
        expect(await ledgerErrorOf(accounts.revokeKey("sk_live_nope"))).toBe("unknown_key");
        expect(await ledgerErrorOf(accounts.revokeKey(created.prefix))).toBe("ambiguous_key");
        expect((await accounts.listKeys()).every((key) => key.revokedAt === null)).toBe(true);
      });

      test("keys are listed per account or all together, oldest first, without their secrets", async () => {
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
      });

      test("a key's last use is what the ledger recorded", async () => {
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

      test("a key for an unknown account is refused", async () => {
        expect(await ledgerErrorOf(accounts.createKey("acct_missing", "a"))).toBe("unknown_account");
      });
    });

    describe("the cap on active keys", () => {
      test(`an account holds at most ${MAX_ACTIVE_KEYS_PER_ACCOUNT} active keys; revoking one makes room`, async () => {
        const { account, key: first } = await accounts.openAccount("Ada");
        for (let i = 1; i < MAX_ACTIVE_KEYS_PER_ACCOUNT; i++) await accounts.createKey(account.id, `k${i}`);
        expect(await ledgerErrorOf(accounts.createKey(account.id, "one too many"))).toBe("too_many_keys");
        expect(await accounts.listKeys(account.id)).toHaveLength(MAX_ACTIVE_KEYS_PER_ACCOUNT);
        expect((await accounts.createKey((await accounts.openAccount("Bob")).account.id, "b")).key).toBeString();

        await accounts.revokeKey(first.keyId);
        await accounts.createKey(account.id, "replacement");
        expect(await activeKeys(account.id)).toHaveLength(MAX_ACTIVE_KEYS_PER_ACCOUNT);
        expect(await ledgerErrorOf(accounts.createKey(account.id, "one too many"))).toBe("too_many_keys");
      });

      test("two processes creating keys at once never exceed the cap together", async () => {
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
        expect(await activeKeys(account.id)).toHaveLength(MAX_ACTIVE_KEYS_PER_ACCOUNT);
      });
    });

    describe("usage summaries", () => {
      test("per-day usage covers the last N UTC days, zero days included, today last", async () => {
        const { account, key } = await accounts.openAccount("Ada");
        const other = await accounts.openAccount("Bob");
        const now = Date.now();
        const midnight = now - (now % DAY);
        let clock = midnight;
        const ledger = fixture.ledger(() => clock);
        const charge = (at: number, requestId: string, credits: number, who = account.id, keyId = key.keyId) => {
          clock = at;
          return ledger.debit(who, { requestId, keyId, endpoint: "/v1/search/recent", credits });
        };
        // Midnight UTC opens a day; the millisecond before it closes the previous one.
        await charge(midnight, "today-first", 3);
        await charge(midnight - 1, "yesterday-last", 5);
        await charge(midnight - 2 * DAY + 1, "two-days-ago-a", 1);
        await charge(midnight - DAY - 1, "two-days-ago-b", 21);
        await charge(midnight - 29 * DAY, "oldest-day", 2);
        await charge(midnight - 29 * DAY - 1, "too-old", 7);
        await charge(midnight, "someone-else", 9, other.account.id, other.key.keyId);

        const days = await accounts.dailyUsage(account.id, 30);
        expect(days).toHaveLength(30);
        expect(days.at(-1)).toEqual({ day: utcDay(now), requests: 1, credits: 3 });
        expect(days.at(-2)).toEqual({ day: utcDay(now - DAY), requests: 1, credits: 5 });
        expect(days.at(-3)).toEqual({ day: utcDay(now - 2 * DAY), requests: 2, credits: 22 });
        expect(days[0]).toEqual({ day: utcDay(now - 29 * DAY), requests: 1, credits: 2 });
        expect(days.map((day) => day.day)).toEqual(Array.from({ length: 30 }, (_, i) => utcDay(now - (29 - i) * DAY)));
        expect(days.reduce((sum, day) => sum + day.requests, 0)).toBe(5);
        expect(await accounts.dailyUsage(account.id, 1)).toEqual([{ day: utcDay(now), requests: 1, credits: 3 }]);
        expect((await accounts.dailyUsage("acct_missing", 7)).every((day) => day.requests === 0)).toBe(true);
      });

      test("a usage summary groups a range's charges by day, endpoint or key, without refunded ones", async () => {
        const { account, key } = await accounts.openAccount("Ada");
        const second = await accounts.createKey(account.id, "second");
        const other = await accounts.openAccount("Bob");
        const day = Date.UTC(2026, 10, 20);
        let clock = day;
        const ledger = fixture.ledger(() => clock);
        const charge = (at: number, requestId: string, credits: number, endpoint: string, keyId = key.keyId) => {
          clock = at;
          return ledger.debit(account.id, { requestId, keyId, endpoint, credits });
        };
        await charge(day, "at-from", 3, "search_recent");
        await charge(day + 1000, "second-key", 5, "tweet", second.keyId);
        await charge(day + DAY + 5, "next-day", 7, "search_recent");
        await charge(day + DAY + 6, "refunded", 11, "tweet");
        await ledger.refund(account.id, "refunded");
        await charge(day + 2 * DAY, "at-to", 13, "tweet");
        clock = day;
        await ledger.debit(other.account.id, {
          requestId: "someone-else",
          keyId: other.key.keyId,
          endpoint: "tweet",
          credits: 17,
        });

        const range = { from: day, to: day + 2 * DAY };
        expect(await accounts.usageSummary(account.id, { ...range, groupBy: "day" })).toEqual([
          { group: "2026-11-20", requests: 2, credits: 8 },
          { group: "2026-11-21", requests: 1, credits: 7 },
        ]);
        expect(await accounts.usageSummary(account.id, { ...range, groupBy: "endpoint" })).toEqual([
          { group: "search_recent", requests: 2, credits: 10 },
          { group: "tweet", requests: 1, credits: 5 },
        ]);
        expect(await accounts.usageSummary(account.id, { ...range, groupBy: "key" })).toEqual([
          { group: key.keyId, requests: 2, credits: 10 },
          { group: second.keyId, requests: 1, credits: 5 },
        ]);
        expect(
          await accounts.usageSummary(account.id, { from: day + 1, to: day + 2 * DAY + 1, groupBy: "day" }),
        ).toEqual([
          { group: "2026-11-20", requests: 1, credits: 5 },
          { group: "2026-11-21", requests: 1, credits: 7 },
          { group: "2026-11-22", requests: 1, credits: 13 },
        ]);
        expect(await accounts.usageSummary("acct_missing", { ...range, groupBy: "key" })).toEqual([]);
      });

      test("latest requests come newest first, ties in the order they were charged", async () => {
        const { account, key } = await accounts.openAccount("Ada");
        const today = Date.UTC(2025, 5, 30, 15);
        let clock = today;
        const ledger = fixture.ledger(() => clock);
        for (const requestId of ["r1", "r2", "r3"]) {
          await ledger.debit(account.id, { requestId, keyId: key.keyId, endpoint: "/v1/tweets/{id}", credits: 1 });
          clock += 1000;
        }
        clock = today + 2000;
        await ledger.debit(account.id, { requestId: "r4", keyId: key.keyId, endpoint: "/v1/users/{id}", credits: 2 });
        const latest = await accounts.recentRequests(account.id, 3);
        expect(latest.map((request) => request.requestId)).toEqual(["r4", "r3", "r2"]);
        expect(latest[1]).toEqual({
          requestId: "r3",
          keyId: key.keyId,
          endpoint: "/v1/tweets/{id}",
          credits: 1,
          createdAt: today + 2000,
        });
        expect(await accounts.recentRequests("acct_missing", 3)).toEqual([]);
      });
    });

    describe("the request log", () => {
      const T = Date.UTC(2026, 10, 20, 12);

      /** Two keys' requests of one account and one of another: charges, a refund, and uncharged answers. */
      async function history() {
        const { account, key } = await accounts.openAccount("Ada");
        const second = await accounts.createKey(account.id, "second");
        const other = await accounts.openAccount("Bob");
        let clock = T;
        const ledger = fixture.ledger(() => clock);
        const charge = async (at: number, requestId: string, credits: number, keyId = key.keyId) => {
          clock = at;
          await ledger.debit(account.id, { requestId, keyId, endpoint: "tweet", credits, durationMs: 7 });
        };
        await charge(T, "c1", 1);
        await charge(T + 2000, "c2", 21, second.keyId);
        await charge(T + 4000, "c3", 5);
        await ledger.refund(account.id, "c3");
        clock = T;
        await ledger.debit(other.account.id, {
          requestId: "o1",
          keyId: other.key.keyId,
          endpoint: "tweet",
          credits: 1,
        });
        const log = fixture.requestLog();
        const refused = (requestId: string, at: number, status: number, errorCode: string | null, keyId = key.keyId) =>
          log.append({
            requestId,
            accountId: account.id,
            keyId,
            endpoint: status === 200 ? "account" : "search_recent",
            status,
            errorCode,
            durationMs: 3,
            createdAt: at,
          });
        refused("u1", T + 1000, 402, "insufficient_credits");
        refused("u2", T + 3000, 404, "endpoint_not_found", second.keyId);
        refused("u3", T + 5000, 200, null);
        refused("u4", T - 10 * DAY, 402, "insufficient_credits");
        log.append({
          ...{ requestId: "o2", accountId: other.account.id, keyId: other.key.keyId },
          endpoint: "tweet",
          status: 429,
          errorCode: "rate_limited",
          durationMs: 1,
          createdAt: T,
        });
        await log.flush();
        return { account, key, second, log };
      }

      const ids = (entries: readonly LoggedRequest[]) => entries.map((entry) => entry.requestId);
      const since = T - DAY;

      /** The ids of an account's whole log, walked in pages of `limit`. */
      async function walkLog(accountId: string, limit: number): Promise<string[]> {
        const walked: string[] = [];
        let before: RequestLogQuery["before"];
        for (let pages = 0; pages < 20; pages++) {
          const page = await accounts.requestLog(accountId, {
            since,
            status: "all",
            limit,
            ...(before ? { before } : {}),
          });
          walked.push(...ids(page.entries));
          if (!page.next) return walked;
          before = page.next;
        }
        throw new Error("the walk does not end");
      }

      test("charges and uncharged answers merged newest first, each as its client saw it", async () => {
        const { account, key, second } = await history();
        const page = await accounts.requestLog(account.id, { since, status: "all", limit: 50 });
        expect(ids(page.entries)).toEqual(["u3", "c3", "u2", "c2", "u1", "c1"]);
        expect(page.next).toBeUndefined();
        const byId = new Map(page.entries.map((entry) => [entry.requestId, entry]));
        expect(byId.get("c2")).toEqual({
          requestId: "c2",
          keyId: second.keyId,
          endpoint: "tweet",
          status: 200,
          errorCode: null,
          credits: 21,
          durationMs: 7,
          createdAt: T + 2000,
        });
        // Refunded: the client never had the answer, and in the end it cost nothing.
        expect(byId.get("c3")).toMatchObject({ status: 499, credits: 0 });
        expect(byId.get("u1")).toEqual({
          requestId: "u1",
          keyId: key.keyId,
          endpoint: "search_recent",
          status: 402,
          errorCode: "insufficient_credits",
          credits: 0,
          durationMs: 3,
          createdAt: T + 1000,
        });
      });

      test("filters by key, endpoint, status and request id, and keeps to the retention", async () => {
        const { account, key, second } = await history();
        const query = (extra: Partial<RequestLogQuery>) =>
          accounts.requestLog(account.id, { since, status: "all", limit: 50, ...extra });
        expect(ids((await query({ keyId: second.keyId })).entries)).toEqual(["u2", "c2"]);
        // Never delivered is a failure too, refunded as it is.
        expect(ids((await query({ keyId: key.keyId, status: "error" })).entries)).toEqual(["c3", "u1"]);
        expect(ids((await query({ endpoint: "tweet" })).entries)).toEqual(["c3", "c2", "c1"]);
        expect(ids((await query({ status: "ok" })).entries)).toEqual(["u3", "c2", "c1"]);
        expect(ids((await query({ status: 402 })).entries)).toEqual(["u1"]);
        expect(ids((await query({ status: 499 })).entries)).toEqual(["c3"]);
        expect(ids((await query({ requestId: "c2" })).entries)).toEqual(["c2"]);
        expect(ids((await query({ requestId: "o1" })).entries)).toEqual([]);
        expect(ids((await query({ since: T - 11 * DAY, status: 402 })).entries)).toEqual(["u1", "u4"]);
        expect((await accounts.requestLog("acct_missing", { since, status: "all", limit: 5 })).entries).toEqual([]);
      });

      test("pages of two walk the whole log once, in order", async () => {
        const { account } = await history();
        expect(await walkLog(account.id, 2)).toEqual(["u3", "c3", "u2", "c2", "u1", "c1"]);
      });

      test("refusals are counted by status, and a purge takes old entries but never a charge", async () => {
        const { account, log } = await history();
        expect(await accounts.countRefused(account.id, 402, T - DAY, 1000)).toBe(1);
        expect(await accounts.countRefused(account.id, 402, T - 11 * DAY, 1000)).toBe(2);
        expect(await accounts.countRefused(account.id, 404, T + 3001, 1000)).toBe(0);
        expect(await log.purge(T)).toBe(1);
        expect(await accounts.countRefused(account.id, 402, 0, 1000)).toBe(1);
        expect(await log.purge(T + 10_000)).toBe(4);
        expect(ids((await accounts.requestLog(account.id, { since: 0, status: "all", limit: 50 })).entries)).toEqual([
          "c3",
          "c2",
          "c1",
        ]);
      });

      test("entries of both kinds at the same millisecond page in request-id order, once each", async () => {
        const { account, key } = await accounts.openAccount("Ada");
        const ledger = fixture.ledger(() => T);
        const log = fixture.requestLog();
        for (const requestId of ["req_a", "req_c", "req_e"]) {
          await ledger.debit(account.id, { requestId, keyId: key.keyId, endpoint: "tweet", credits: 1 });
        }
        for (const requestId of ["req_b", "req_d", "req_f"]) {
          log.append({
            requestId,
            accountId: account.id,
            keyId: key.keyId,
            endpoint: "tweet",
            status: 404,
            errorCode: "endpoint_not_found",
            durationMs: 1,
            createdAt: T,
          });
        }
        await log.flush();
        expect(await walkLog(account.id, 1)).toEqual(["req_f", "req_e", "req_d", "req_c", "req_b", "req_a"]);
      });

      test("a purge of more than one chunk takes every old entry; a refusal count stops at its cap", async () => {
        const { account, key } = await accounts.openAccount("Ada");
        const log = fixture.requestLog();
        for (let i = 0; i < 12_000; i++) {
          log.append({
            requestId: `req_${i.toString(16)}`,
            accountId: account.id,
            keyId: key.keyId,
            endpoint: "tweet",
            status: 402,
            errorCode: "insufficient_credits",
            durationMs: 1,
            createdAt: T - DAY + i,
          });
        }
        await log.flush();
        expect(await accounts.countRefused(account.id, 402, 0, 1000)).toBe(1000);
        expect(await accounts.countRefused(account.id, 402, T - DAY + 11_990, 1000)).toBe(10);
        expect(await log.purge(T)).toBe(12_000);
        expect(await accounts.countRefused(account.id, 402, 0, 1000)).toBe(0);
      }, 30_000);

      test("entries are written without a flush, shortly after they are appended", async () => {
        const { account, key } = await accounts.openAccount("Ada");
        fixture.requestLog().append({
          requestId: "later",
          accountId: account.id,
          keyId: key.keyId,
          endpoint: "usage",
          status: 200,
          errorCode: null,
          durationMs: 1,
          createdAt: T,
        });
        const query = { since: 0, status: "all" as const, limit: 5 };
        for (let waited = 0; waited < 2000; waited += 50) {
          if ((await accounts.requestLog(account.id, query)).entries.length > 0) break;
          await Bun.sleep(50);
        }
        expect(ids((await accounts.requestLog(account.id, query)).entries)).toEqual(["later"]);
      });
    });

    describe("grants and the low-balance warning", () => {
      test("grants come newest first, a refund naming the charge it gives back", async () => {
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
      });

      test("a warning threshold is set, read with the account, and reset to the default", async () => {
        const { account } = await accounts.openAccount("Ada");
        await accounts.setLowBalanceWarning(account.id, 150);
        expect((await accounts.account(account.id))?.lowBalanceWarning).toBe(150);
        await accounts.setLowBalanceWarning(account.id, null);
        expect((await accounts.account(account.id))?.lowBalanceWarning).toBeNull();
        expect(await ledgerErrorOf(accounts.setLowBalanceWarning(account.id, -1))).toBe("invalid_amount");
        expect(await ledgerErrorOf(accounts.setLowBalanceWarning("acct_missing", 5))).toBe("unknown_account");
      });
    });

    describe("secrets", () => {
      test("a secret is made once and then read back, by every process", async () => {
        const secret = await accounts.secret("session_secret");
        expect(secret).toMatch(/^[0-9a-f]{64}$/);
        expect(await accounts.secret("session_secret")).toBe(secret);
        expect(await fixture.peer.secret("session_secret")).toBe(secret);
        expect(await accounts.secret("pagination_token_secret")).not.toBe(secret);
      });

      test("processes asking for a new secret at once all get the same one", async () => {
        const asked = await Promise.all(
          Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? accounts : fixture.peer).secret("raced")),
        );
        expect(new Set(asked).size).toBe(1);
      });
    });
  });
}
