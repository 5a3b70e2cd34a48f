// The request log as an account reads it: charges and the answers that were not charged, merged newest
// first, filtered, paged, counted by status and purged past the retention, never losing a charge.
import { describe, expect } from "bun:test";
import {
  type Accounts,
  BALANCE_REFUSAL,
  KEY_LIMIT_REFUSAL,
  type LoggedRequest,
  type RequestLogQuery,
} from "@social/core";
import { type AccountsFixture, type AccountsTest, DAY } from "./suite.ts";

/** The request log: an account's charges and uncharged answers, filtered, paged and purged. */
export function requestLogConformance(accountsTest: AccountsTest): void {
  describe("the request log", () => {
    const T = Date.UTC(2026, 10, 20, 12);
    /** What the clients called, kept as sent: a /2 path is not the /v1 one of its endpoint. */
    const CHARGED_CALL = "/2/tweets/search/recent?query=coffee%20shop&max_results=10";
    const REFUSED_CALL = "/v1/search/recent?query=caf%C3%A9";

    /** Two keys' requests of one account and one of another: charges, a refund, and uncharged answers. */
    async function history(fixture: AccountsFixture) {
      const { accounts } = fixture;
      const { account, key } = await accounts.openAccount("Ada");
      const second = await accounts.createKey(account.id, "second");
      const other = await accounts.openAccount("Bob");
      let clock = T;
      const ledger = fixture.ledger(() => clock);
      const charge = async (at: number, requestId: string, credits: number, keyId = key.keyId, call?: string) => {
        clock = at;
        const called = call === undefined ? {} : { call };
        await ledger.debit(account.id, { requestId, keyId, endpoint: "tweet", credits, durationMs: 7, ...called });
      };
      await charge(T, "c1", 1);
      await charge(T + 2000, "c2", 21, second.keyId, CHARGED_CALL);
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
          call: requestId === "u1" ? REFUSED_CALL : null,
          status,
          errorCode,
          message: errorCode === null ? null : `refused: ${errorCode}`,
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
        call: null,
        status: 429,
        errorCode: "rate_limited",
        message: null,
        durationMs: 1,
        createdAt: T,
      });
      await log.flush();
      return { account, key, second, log };
    }

    const ids = (entries: readonly LoggedRequest[]) => entries.map((entry) => entry.requestId);
    const since = T - DAY;

    /** The ids of an account's whole log, walked in pages of `limit`. */
    async function walkLog(accounts: Accounts, accountId: string, limit: number): Promise<string[]> {
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

    accountsTest(
      "charges and uncharged answers merged newest first, each as its client saw it",
      async ({ accounts, fixture }) => {
        const { account, key, second } = await history(fixture);
        const page = await accounts.requestLog(account.id, { since, status: "all", limit: 50 });
        expect(ids(page.entries)).toEqual(["u3", "c3", "u2", "c2", "u1", "c1"]);
        expect(page.next).toBeUndefined();
        const byId = new Map(page.entries.map((entry) => [entry.requestId, entry]));
        expect(byId.get("c2")).toEqual({
          requestId: "c2",
          keyId: second.keyId,
          endpoint: "tweet",
          call: CHARGED_CALL,
          status: 200,
          errorCode: null,
          message: null,
          credits: 21,
          durationMs: 7,
          createdAt: T + 2000,
        });
        // Refunded: the client never had the answer, and in the end it cost nothing.
        expect(byId.get("c3")).toMatchObject({ status: 499, credits: 0, call: null });
        expect(byId.get("u1")).toEqual({
          requestId: "u1",
          keyId: key.keyId,
          endpoint: "search_recent",
          call: REFUSED_CALL,
          status: 402,
          errorCode: "insufficient_credits",
          message: "refused: insufficient_credits",
          credits: 0,
          durationMs: 3,
          createdAt: T + 1000,
        });
      },
    );

    accountsTest(
      "filters by key, endpoint, status and request id, and keeps to the retention",
      async ({ accounts, fixture }) => {
        const { account, key, second } = await history(fixture);
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
      },
    );

    accountsTest("pages of two walk the whole log once, in order", async ({ accounts, fixture }) => {
      const { account } = await history(fixture);
      expect(await walkLog(accounts, account.id, 2)).toEqual(["u3", "c3", "u2", "c2", "u1", "c1"]);
    });

    accountsTest(
      "a page names the newer page above it, which keeps the filters and walks back to the first",
      async ({ accounts, fixture }) => {
        const { account, key } = await history(fixture);
        const query = (extra: Partial<RequestLogQuery>) =>
          accounts.requestLog(account.id, { since, status: "all", limit: 2, ...extra });
        const first = await query({});
        expect(first.newer).toBeUndefined();
        const second = await query({ before: first.next });
        expect(ids(second.entries)).toEqual(["u2", "c2"]);
        expect(second.newer).toEqual({ createdAt: T + 3000, requestId: "u2" });
        const last = await query({ before: second.next });
        expect(ids(last.entries)).toEqual(["u1", "c1"]);
        expect(last.next).toBeUndefined();
        // Back up: the page above the last is the second again, newest first, and above it the first.
        const up = await query({ after: last.newer });
        expect(ids(up.entries)).toEqual(["u2", "c2"]);
        expect(up.next).toEqual({ createdAt: T + 2000, requestId: "c2" });
        const top = await query({ after: up.newer });
        expect(ids(top.entries)).toEqual(["u3", "c3"]);
        expect(top.newer).toBeUndefined();
        expect(top.next).toEqual({ createdAt: T + 4000, requestId: "c3" });
        // Above an entry with the same filters: only that key's, still newest first.
        const below = { createdAt: T, requestId: "c1" };
        expect(ids((await query({ keyId: key.keyId, after: below, limit: 50 })).entries)).toEqual(["u3", "c3", "u1"]);
        const refusals = await query({ keyId: key.keyId, status: "error", after: below, limit: 1 });
        expect(ids(refusals.entries)).toEqual(["u1"]);
        expect(refusals.newer).toEqual({ createdAt: T + 1000, requestId: "u1" });
        expect(ids((await query({ keyId: key.keyId, status: "error", after: refusals.newer })).entries)).toEqual([
          "c3",
        ]);
      },
    );

    accountsTest(
      "refusals are counted by status, and a purge takes old entries but never a charge",
      async ({ accounts, fixture }) => {
        const { account, log } = await history(fixture);
        expect(await accounts.countRefused(account.id, BALANCE_REFUSAL, T - DAY, 1000)).toBe(1);
        expect(await accounts.countRefused(account.id, BALANCE_REFUSAL, T - 11 * DAY, 1000)).toBe(2);
        expect(
          await accounts.countRefused(account.id, { status: 404, errorCode: "endpoint_not_found" }, T + 3001, 1000),
        ).toBe(0);
        expect(await log.purge(T)).toBe(1);
        expect(await accounts.countRefused(account.id, BALANCE_REFUSAL, 0, 1000)).toBe(1);
        expect(await log.purge(T + 10_000)).toBe(4);
        expect(ids((await accounts.requestLog(account.id, { since: 0, status: "all", limit: 50 })).entries)).toEqual([
          "c3",
          "c2",
          "c1",
        ]);
      },
    );

    accountsTest("a key's limit reached is counted apart from the balance run out", async ({ accounts, fixture }) => {
      const { account, key } = await accounts.openAccount("Ada");
      const log = fixture.requestLog();
      for (const [requestId, refusal] of [
        ["req_1", BALANCE_REFUSAL],
        ["req_2", KEY_LIMIT_REFUSAL],
        ["req_3", KEY_LIMIT_REFUSAL],
      ] as const) {
        log.append({
          requestId,
          accountId: account.id,
          keyId: key.keyId,
          endpoint: "tweet",
          call: null,
          ...refusal,
          message: null,
          durationMs: 1,
          createdAt: T,
        });
      }
      await log.flush();
      expect(await accounts.countRefused(account.id, BALANCE_REFUSAL, 0, 1000)).toBe(1);
      expect(await accounts.countRefused(account.id, KEY_LIMIT_REFUSAL, 0, 1000)).toBe(2);
    });

    accountsTest(
      "entries of both kinds at the same millisecond page in request-id order, once each",
      async ({ accounts, fixture }) => {
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
            call: null,
            message: null,
            status: 404,
            errorCode: "endpoint_not_found",
            durationMs: 1,
            createdAt: T,
          });
        }
        await log.flush();
        expect(await walkLog(accounts, account.id, 1)).toEqual(["req_f", "req_e", "req_d", "req_c", "req_b", "req_a"]);
      },
    );

    accountsTest(
      "a purge of more than one chunk takes every old entry; a refusal count stops at its cap",
      async ({ accounts, fixture }) => {
        const { account, key } = await accounts.openAccount("Ada");
        const log = fixture.requestLog();
        for (let i = 0; i < 12_000; i++) {
          log.append({
            requestId: `req_${i.toString(16)}`,
            accountId: account.id,
            keyId: key.keyId,
            endpoint: "tweet",
            call: null,
            message: null,
            status: 402,
            errorCode: "insufficient_credits",
            durationMs: 1,
            createdAt: T - DAY + i,
          });
        }
        await log.flush();
        expect(await accounts.countRefused(account.id, BALANCE_REFUSAL, 0, 1000)).toBe(1000);
        expect(await accounts.countRefused(account.id, BALANCE_REFUSAL, T - DAY + 11_990, 1000)).toBe(10);
        expect(await log.purge(T)).toBe(12_000);
        expect(await accounts.countRefused(account.id, BALANCE_REFUSAL, 0, 1000)).toBe(0);
      },
      30_000,
    );

    accountsTest(
      "entries are written without a flush, shortly after they are appended",
      async ({ accounts, fixture }) => {
        const { account, key } = await accounts.openAccount("Ada");
        fixture.requestLog().append({
          requestId: "later",
          accountId: account.id,
          keyId: key.keyId,
          endpoint: "usage",
          call: null,
          message: null,
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
      },
    );
  });
}
