// Every /v1 endpoint over real HTTP on the fixture world, on SQLite and on PostgreSQL: shapes, costs,
// pagination, and the ledger.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { catalogue, costOf, costRuleFor, successEnvelopeSchema, validateParams } from "@social/core";
import { exampleParams, examples } from "@social/fixtures";
import * as v from "valibot";
import { countedItems, url } from "./example-requests.ts";
import { ADAPTERS, startTestServer, type TestServer } from "./harness.ts";
import { record } from "./responses.ts";

// The whole suite on each adapter: the same requests must answer, bill and page alike on both.
describe.each(ADAPTERS)("on %s", (adapter) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ adapter });
  });
  afterAll(() => server.close());

  describe("every /v1 endpoint", () => {
    for (const endpoint of catalogue) {
      it(`${endpoint.path} answers the fixture example with its shape and cost`, async () => {
        const { accountId, key } = await server.account();
        const params = exampleParams(endpoint);
        const response = await server.get(url(endpoint, params), key);
        const body = (await record(response, endpoint.id)) as {
          data: unknown;
          meta: { request_id: string; credits: { charged: number; remaining: number } };
        };
        expect(response.status).toBe(200);
        expect(v.safeParse(successEnvelopeSchema(endpoint.data), body).issues).toBeUndefined();
        const validated = validateParams(endpoint, { ...params });
        // Counted from the body the client received, by SPEC.md's rules (not from the server's claim).
        const expected = costOf(costRuleFor(endpoint, validated), countedItems(endpoint, body.data));
        expect(body.meta.credits).toEqual({ charged: expected, remaining: 1000 - expected });
        expect(await server.balance(accountId)).toBe(1000 - expected);
        expect(await server.usageTotal(accountId)).toBe(expected);
        expect(response.headers.get("x-request-id")).toBe(body.meta.request_id);
        // req_ and a UUIDv7: the time comes first, so ids sort by time.
        expect(body.meta.request_id).toMatch(/^req_[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
        expect(Math.abs(Number.parseInt(body.meta.request_id.slice(4, 16), 16) - Date.now())).toBeLessThan(60_000);
        for (const header of ["x-rate-limit-limit", "x-rate-limit-remaining", "x-rate-limit-reset"]) {
          expect(response.headers.get(header)).toMatch(/^\d+$/);
        }
        if (
          Array.isArray(body.data) &&
          endpoint.id !== "trends" &&
          endpoint.id !== "users" &&
          endpoint.id !== "tweets"
        ) {
          expect(body.data.length).toBeGreaterThan(0);
        }
      });
    }
  });

  async function walk(path: (token?: string) => string, key: string) {
    const ids: string[] = [];
    let charged = 0;
    let pages = 0;
    let token: string | undefined;
    do {
      const response = await server.get(path(token), key);
      const body = (await record(response)) as {
        data: { id: string }[];
        meta: { credits: { charged: number }; pagination?: { next_token: string } };
      };
      expect(response.status).toBe(200);
      ids.push(...body.data.map((item) => item.id));
      charged += body.meta.credits.charged;
      token = body.meta.pagination?.next_token;
      pages++;
      if (token) expect(body.data.length).toBeGreaterThan(0);
    } while (token && pages < 200);
    return { ids, charged, pages };
  }

  describe("pagination", () => {
    it("walks a search to its end without repeats, charging each page", async () => {
      const { accountId, key } = await server.account(100_000);
      const q = encodeURIComponent(examples.search_query);
      const { ids, charged, pages } = await walk(
        (t) => `/v1/search/recent?query=${q}&limit=7${t ? `&next_token=${t}` : ""}`,
        key,
      );
      expect(ids.length).toBeGreaterThanOrEqual(60);
      expect(new Set(ids).size).toBe(ids.length);
      expect(pages).toBe(Math.ceil(ids.length / 7) + (ids.length % 7 === 0 ? 1 : 0));
      expect(charged).toBe(pages + ids.length);
      expect(await server.balance(accountId)).toBe(100_000 - charged);
      const sorted = [...ids].sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : -1));
      expect(ids).toEqual(sorted);
    });

    it("walks followers ids and profiles to the same set", async () => {
      const { key } = await server.account(100_000);
      const id = examples.user_id;
      const asIds = await walk((t) => `/v1/users/${id}/followers?mode=ids&limit=50${t ? `&next_token=${t}` : ""}`, key);
      const asProfiles = await walk((t) => `/v1/users/${id}/followers${t ? `?next_token=${t}` : ""}`, key);
      expect(asIds.ids.length).toBeGreaterThan(50);
      expect(new Set(asIds.ids).size).toBe(asIds.ids.length);
      expect(asProfiles.ids).toEqual(asIds.ids);
    });

    it("refuses a tampered token, a token of another endpoint, and charges neither", async () => {
      const { accountId, key } = await server.account();
      const first = (await (
        await server.get(`/v1/users/${examples.user_id}/followers?mode=ids&limit=2`, key)
      ).json()) as {
        meta: { credits: { charged: number }; pagination: { next_token: string } };
      };
      const token = first.meta.pagination.next_token;
      const spent = first.meta.credits.charged;
      const tampered = token.slice(0, -2) + (token.at(-2) === "A" ? "B" : "A") + token.at(-1);
      for (const path of [
        `/v1/users/${examples.user_id}/followers?mode=ids&limit=2&next_token=${tampered}`,
        `/v1/users/${examples.user_id}/following?mode=ids&limit=2&next_token=${token}`,
        `/v1/users/${examples.user_id}/followers?mode=profiles&next_token=${token}`,
      ]) {
        const response = await server.get(path, key);
        expect(response.status).toBe(400);
        expect(((await record(response)) as { error: { code: string } }).error.code).toBe("invalid_request");
      }
      expect(await server.balance(accountId)).toBe(1000 - spent);
    });
  });

  describe("read ranges with ids past what any store holds", () => {
    it("since_id past every id is an empty page, until_id past every id bounds nothing, up to 19 digits", async () => {
      const { key } = await server.account(100_000);
      const q = encodeURIComponent(examples.search_query);
      const ids = async (path: string) => {
        const response = await server.get(path, key);
        expect([path, response.status]).toEqual([path, 200]);
        return ((await response.json()) as { data: { id: string }[] }).data.map((item) => item.id);
      };
      const timeline = `/v1/users/${examples.user_id}/tweets`;
      const newest = await ids(timeline);
      expect(newest.length).toBeGreaterThan(0);
      for (const huge of ["9007199254740993", "1800000000000000001", "9223372036854775808", "9999999999999999999"]) {
        expect(await ids(`/v1/search/recent?query=${q}&since_id=${huge}`)).toEqual([]);
        expect(
          await ids(`/v1/search/recent?query=${encodeURIComponent(`${examples.search_query} since_id:${huge}`)}`),
        ).toEqual([]);
        expect(await ids(`${timeline}?since_id=${huge}`)).toEqual([]);
        expect(await ids(`${timeline}?until_id=${huge}`)).toEqual(newest);
      }
    });
  });

  describe("ledger under concurrency", () => {
    it("64 parallel clients, 5,000 mixed-cost requests: balance + usage = start, no 5xx", async () => {
      const { accountId, key } = await server.account(40_000);
      const paths = [
        `/v1/tweets/${examples.tweet_id}`,
        `/v1/search/recent?query=${encodeURIComponent(examples.search_query)}&limit=5`,
        `/v1/users/${examples.user_id}/followers?mode=ids&limit=60`,
        `/v1/profiles/${examples.user_id}`,
        `/v1/users/${examples.user_id}/tweets`,
        "/v1/tweets/999999999999",
      ];
      let next = 0;
      let reported = 0;
      const statuses = new Map<number, number>();
      async function client() {
        while (next < 5000) {
          const path = paths[next++ % paths.length] as string;
          const response = await server.get(path, key);
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          const body = (await response.json()) as { meta?: { credits: { charged: number } } };
          reported += body.meta?.credits.charged ?? 0;
        }
      }
      await Promise.all(Array.from({ length: 64 }, client));
      const balance = await server.balance(accountId);
      expect([...statuses.keys()].every((status) => status < 500)).toBe(true);
      expect(statuses.get(402) ?? 0).toBeGreaterThan(0);
      expect(balance).toBeGreaterThanOrEqual(0);
      expect(balance + (await server.usageTotal(accountId))).toBe(40_000);
      expect(await server.usageTotal(accountId)).toBe(reported);
    }, 120_000);
  });
});
