// Usage summaries: an account's charges by UTC day, endpoint or key over a range, refunds left out,
// and its latest requests.
import { describe, expect } from "bun:test";
import { type AccountsTest, DAY, utcDay } from "./suite.ts";

/** Usage: what an account's charges add up to, by day, endpoint or key, and its latest requests. */
export function usageConformance(accountsTest: AccountsTest): void {
  describe("usage summaries", () => {
    accountsTest(
      "per-day usage covers the last N UTC days, zero days included, today last",
      async ({ accounts, fixture }) => {
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
      },
    );

    accountsTest(
      "a usage summary groups a range's charges by day, endpoint or key, without refunded ones",
      async ({ accounts, fixture }) => {
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
      },
    );

    accountsTest(
      "latest requests come newest first, ties in the order they were charged",
      async ({ accounts, fixture }) => {
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
      },
    );
  });
}
