// GET /v1/account and /v1/usage over real HTTP on both adapters: free, authenticated and rate-limited
// like every request, saying what the ledger holds; the usage as JSON and as CSV for a spreadsheet.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { examples } from "@social/fixtures";
import { ADAPTERS, startTestServer, type TestServer } from "./harness.ts";

const today = () => new Date().toISOString().slice(0, 10);

interface Envelope {
  data: Record<string, unknown>;
  meta: { request_id: string; credits: { charged: number; remaining: number } };
  error?: { code: string; details?: { parameter?: string; message: string }[] };
}

describe.each(ADAPTERS)("on %s", (adapter) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ adapter });
  });
  afterAll(() => server.close());

  const read = async (path: string, key?: string, init?: RequestInit) =>
    (await (await server.get(path, key, init)).json()) as Envelope;

  describe("GET /v1/account", () => {
    it("says the balance and the calling key with its limit and expiry, free and never cached", async () => {
      const expiresAt = Date.UTC(2099, 0, 31);
      const { account, key } = await server.backend.accounts.openAccount("Ada", 500, {
        limit: { credits: 100, per: "day" },
        expiresAt,
      });
      await server.get(`/v1/users/${examples.user_id}/tweets`, key.key);
      const response = await server.get("/v1/account", key.key);
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("x-rate-limit-limit")).toBeString();
      const body = (await response.json()) as Envelope;
      expect(body.data).toEqual({
        account_id: account.id,
        balance: 479,
        key: {
          id: key.keyId,
          name: "Ada",
          prefix: key.prefix,
          limit: { credits: 100, per: "day", remaining: 79 },
          expires_at: "2099-01-31T00:00:00.000Z",
        },
      });
      expect(body.meta.credits).toEqual({ charged: 0, remaining: 479 });
      expect(await server.balance(account.id)).toBe(479);
    });

    it("refuses a missing, unknown or revoked key with 401, and an unknown parameter with 400", async () => {
      expect((await server.get("/v1/account")).status).toBe(401);
      const { key, keyId } = await server.account();
      expect((await read("/v1/account?verbose=1", key)).error?.details).toEqual([
        { parameter: "verbose", message: "is not a parameter of this endpoint" },
      ]);
      await server.revoke(keyId);
      expect((await read("/v1/account", key)).error?.code).toBe("revoked_api_key");
      expect((await server.get("/v1/account", key, { method: "POST" })).status).toBe(404);
    });
  });

  describe("GET /v1/usage", () => {
    it("groups today's charges by day, endpoint and key, with their totals, free", async () => {
      const { account, key } = await server.backend.accounts.openAccount("Grace", 1000);
      const second = await server.backend.accounts.createKey(account.id, "second");
      await server.get(`/v1/tweets/${examples.tweet_id}`, key.key);
      await server.get(`/v1/tweets/${examples.tweet_id}`, second.key);
      const timeline = await read(`/v1/users/${examples.user_id}/tweets`, key.key);
      const charged = 2 + timeline.meta.credits.charged;

      const byDay = await read("/v1/usage", key.key);
      expect(byDay.data).toEqual({
        from: new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10),
        to: today(),
        group_by: "day",
        total: { requests: 3, credits: charged },
        groups: [{ day: today(), requests: 3, credits: charged }],
      });
      expect(byDay.meta.credits).toEqual({ charged: 0, remaining: 1000 - charged });
      expect((await read("/v1/usage?group_by=endpoint", key.key)).data.groups).toEqual([
        { endpoint: "/v1/users/{id}/tweets", requests: 1, credits: charged - 2 },
        { endpoint: "/v1/tweets/{id}", requests: 2, credits: 2 },
      ]);
      expect((await read("/v1/usage?group_by=key", key.key)).data.groups).toEqual([
        { key_id: key.keyId, requests: 2, credits: charged - 1 },
        { key_id: second.keyId, requests: 1, credits: 1 },
      ]);
      expect((await read(`/v1/usage?from=2020-01-01&to=2020-01-31`, key.key)).data.groups).toEqual([]);
      expect(await server.balance(account.id)).toBe(1000 - charged);
    });

    it("answers CSV for format=csv or Accept: text/csv, ready for a spreadsheet", async () => {
      const { key } = await server.account();
      await server.get(`/v1/tweets/${examples.tweet_id}`, key);
      const csv = await server.get("/v1/usage?group_by=endpoint&format=csv", key);
      expect(csv.status).toBe(200);
      expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect(csv.headers.get("content-disposition")).toMatch(/^attachment; filename="usage-.*-by-endpoint\.csv"$/);
      expect(await csv.text()).toBe("endpoint,requests,credits\r\n/v1/tweets/{id},1,1\r\n");
      const accepted = await server.get("/v1/usage", key, { headers: { accept: "text/csv" } });
      expect(await accepted.text()).toBe(`day,requests,credits\r\n${today()},1,1\r\n`);
      // An error is the JSON envelope whatever was asked for.
      const refused = await server.get("/v1/usage?format=xml", key, { headers: { accept: "text/csv" } });
      expect(refused.status).toBe(400);
      expect(refused.headers.get("content-type")).toStartWith("application/json");
    });

    it("refuses dates that are not dates, a range backwards or longer than a year, uncharged", async () => {
      const { accountId, key } = await server.account();
      const detail = async (query: string) => (await read(`/v1/usage?${query}`, key)).error?.details;
      expect(await detail("from=2026-1-1")).toEqual([
        { parameter: "from", message: "must be a date written YYYY-MM-DD" },
      ]);
      expect(await detail("to=2026-02-31")).toEqual([{ parameter: "to", message: "is not a date of the calendar" }]);
      expect(await detail("from=2026-03-02&to=2026-03-01")).toEqual([
        { parameter: "from", message: "must not be after to" },
      ]);
      expect(await detail("from=2025-01-01&to=2026-01-02")).toEqual([
        { parameter: "from", message: "must be at most 366 days before to" },
      ]);
      expect(await detail("group_by=hour")).toEqual([
        { parameter: "group_by", message: "must be one of day, endpoint, key" },
      ]);
      expect((await read("/v1/usage?from=2025-01-02&to=2026-01-02", key)).data.group_by).toBe("day");
      expect(await server.balance(accountId)).toBe(1000);
    });
  });
});
