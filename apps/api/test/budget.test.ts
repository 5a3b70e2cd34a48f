// What a caller can know and bound before paying, over real HTTP and the MCP SDK's client, on both
// adapters: dry_run's quote (free, never below the charge) and max_credits's cap (a page shortened to
// what it covers, continued by its next_token, never charged above it).
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { catalogue, costOf, costRuleFor, DryRunEnvelopeSchema, endpointsById, validateParams } from "@social/core";
import { examples } from "@social/fixtures";
import * as v from "valibot";
import { exampleParams } from "../src/docs/openapi.ts";
import { countedItems, url } from "./example-requests.ts";
import { ADAPTERS, startTestServer, type TestServer } from "./harness.ts";

interface Body {
  data: unknown;
  meta: {
    credits: { charged: number; remaining: number; capped?: true; max?: number; rule?: string };
    pagination?: { next_token: string };
    dry_run?: true;
  };
  error?: { code: string; details?: { parameter?: string; message: string; minimum?: number }[] };
}

async function read(response: Response): Promise<Body> {
  return (await response.json()) as Body;
}

const ids = (data: unknown) => (data as { id: string }[]).map((item) => item.id);

describe.each(ADAPTERS)("on %s", (adapter) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ adapter });
  });
  afterAll(() => server.close());

  describe("dry_run=true", () => {
    it("on every entry: free, reads nothing, and quotes at least what the same request is then charged", async () => {
      for (const endpoint of catalogue) {
        const { accountId, key } = await server.account();
        const params = exampleParams(endpoint);
        const quoted = await server.get(url(endpoint, { ...params, dry_run: "true" }), key);
        const quote = await read(quoted);
        expect({ id: endpoint.id, status: quoted.status }).toEqual({ id: endpoint.id, status: 200 });
        expect(v.safeParse(DryRunEnvelopeSchema, quote).issues).toBeUndefined();
        expect(await server.balance(accountId)).toBe(1000);

        const answer = await read(await server.get(url(endpoint, params), key));
        const rule = costRuleFor(endpoint, validateParams(endpoint, { ...params }));
        const charged = costOf(rule, countedItems(endpoint, answer.data));
        expect(answer.meta.credits.charged).toBe(charged);
        expect({ id: endpoint.id, fits: charged <= (quote.meta.credits.max ?? 0) }).toEqual({
          id: endpoint.id,
          fits: true,
        });
      }
    });

    it("quotes the largest page and the most ids at their price, and a cap's lower bound", async () => {
      const { key } = await server.account();
      const quote = async (path: string) => (await read(await server.get(path, key))).meta.credits;
      expect(await quote(`/v1/users/${examples.user_id}/followers?mode=ids&limit=5000&dry_run=true`)).toEqual({
        charged: 0,
        remaining: 1000,
        max: 101,
        rule: "1 credit + 1 per 50 returned items (rounded up)",
      });
      const hundredIds = Array.from({ length: 100 }, (_, i) => String(i + 1)).join(",");
      expect((await quote(`/v1/tweets?ids=${hundredIds}&dry_run=true`)).max).toBe(101);
      expect(await quote(`/v1/tweets/${examples.thread_tweet_id}/thread?dry_run=true&max_credits=7`)).toEqual({
        charged: 0,
        remaining: 1000,
        capped: true,
        max: 7,
        rule: "1 credit + 1 per returned item",
      });
    });

    it("is validated like the read, and still needs a valid key", async () => {
      const { accountId, key } = await server.account();
      const bad = await read(await server.get("/v1/search/recent?query=a&limit=0&dry_run=true", key));
      expect(bad.error?.code).toBe("invalid_request");
      const maybe = await read(await server.get("/v1/search/recent?query=a&dry_run=maybe", key));
      expect(maybe.error?.details).toEqual([{ parameter: "dry_run", message: "must be true or false" }]);
      expect((await server.get("/v1/search/recent?query=a&dry_run=true")).status).toBe(401);
      expect(await server.balance(accountId)).toBe(1000);
    });
  });

  describe("max_credits", () => {
    it("on every entry: the charge stays within the cap, and capped says when the cap lowered the request", async () => {
      for (const endpoint of catalogue) {
        const { key } = await server.account();
        const params = exampleParams(endpoint);
        const rule = costRuleFor(endpoint, validateParams(endpoint, { ...params }));
        const cap = costOf(rule, 1);
        const uncapped = await read(await server.get(url(endpoint, params), key));
        const capped = await read(await server.get(url(endpoint, { ...params, max_credits: cap }), key));
        expect({ id: endpoint.id, within: capped.meta.credits.charged <= cap }).toEqual({
          id: endpoint.id,
          within: true,
        });
        // The quote of the uncapped request says whether the cap lowered what it could return.
        const most = (await read(await server.get(url(endpoint, { ...params, dry_run: "true" }), key))).meta.credits;
        expect({ id: endpoint.id, capped: capped.meta.credits.capped ?? false }).toEqual({
          id: endpoint.id,
          capped: (most.max ?? 0) > cap,
        });
        if (uncapped.meta.credits.charged <= cap) expect(capped.data).toEqual(uncapped.data);
      }
    });

    it("shortens a page to what it covers; its next_token continues right after the last item returned", async () => {
      const { accountId, key } = await server.account();
      const search = `/v1/search/recent?query=${encodeURIComponent(examples.search_query)}`;
      const whole = await read(await server.get(search, key));
      expect(ids(whole.data).length).toBe(20);

      const pages: string[][] = [];
      let token: string | undefined;
      let charged = 0;
      for (let i = 0; i < 4; i++) {
        const next = token ? `&next_token=${encodeURIComponent(token)}` : "";
        const page = await read(await server.get(`${search}&max_credits=6${next}`, key));
        expect(page.meta.credits).toMatchObject({ charged: 6, capped: true });
        charged += page.meta.credits.charged;
        pages.push(ids(page.data));
        token = page.meta.pagination?.next_token;
      }
      expect(pages.flat()).toEqual(ids(whole.data));
      // The token of a capped page pages on without the cap too.
      const rest = await read(await server.get(`${search}&next_token=${encodeURIComponent(token ?? "")}`, key));
      const wholeNext = await read(
        await server.get(`${search}&next_token=${encodeURIComponent(whole.meta.pagination?.next_token ?? "")}`, key),
      );
      expect(ids(rest.data)).toEqual(ids(wholeNext.data));
      expect(await server.balance(accountId)).toBe(1000 - 21 - charged - 21 - 21);
    });

    it("reads only the ids it covers, in the order given", async () => {
      const { key } = await server.account();
      const both = `${examples.tweet_id},${examples.quoted_tweet_id}`;
      const answer = await read(await server.get(`/v1/tweets?ids=${both}&max_credits=2`, key));
      expect(ids(answer.data)).toEqual([examples.tweet_id]);
      expect(answer.meta.credits).toEqual({ charged: 2, remaining: 998, capped: true });
    });

    it("below the smallest answer is 400 with that minimum, uncharged; a bad or twice-given cap is 400", async () => {
      const { accountId, key } = await server.account();
      const low = await server.get(`/v1/users/${examples.user_id}/tweets?max_credits=1`, key);
      expect(low.status).toBe(400);
      expect((await read(low)).error?.details).toEqual([
        {
          parameter: "max_credits",
          message: "must be at least 2: the smallest answer of this request costs 2 (1 credit + 1 per returned item)",
          minimum: 2,
        },
      ]);
      // A flat read's smallest answer is its base.
      expect((await server.get(`/v1/tweets/${examples.tweet_id}?max_credits=1`, key)).status).toBe(200);
      for (const cap of ["0", "-3", "2.5", "lots", "1000000001"]) {
        const answer = await read(await server.get(`/v1/tweets/${examples.tweet_id}?max_credits=${cap}`, key));
        expect(answer.error?.details?.[0]?.parameter).toBe("max_credits");
      }
      const twice = await server.get(`/v1/tweets/${examples.tweet_id}?max_credits=5`, key, {
        headers: { "x-max-credits": "5" },
      });
      expect((await read(twice)).error?.details).toEqual([
        { parameter: "max_credits", message: "must be given only once" },
      ]);
      expect(await server.balance(accountId)).toBe(999);
    });

    it("comes as the X-Max-Credits header on /v1 and /2", async () => {
      const { key } = await server.account();
      const capped = { headers: { "x-max-credits": "3" } };
      const v1 = await read(await server.get(`/v1/users/${examples.user_id}/tweets`, key, capped));
      expect(ids(v1.data).length).toBe(2);
      expect(v1.meta.credits).toMatchObject({ charged: 3, capped: true });

      const v2 = await server.get(`/2/users/${examples.user_id}/tweets`, key, capped);
      expect(v2.status).toBe(200);
      expect(v2.headers.get("x-credits-charged")).toBe("3");
      expect(v2.headers.get("x-credits-capped")).toBe("true");
      const v2Body = (await v2.json()) as { data: unknown[]; meta: { result_count: number; next_token?: string } };
      expect(v2Body.meta.result_count).toBe(2);
      expect(v2Body.meta.next_token).toBeString();

      // Ids past the cap were not read, so /2 does not call them missing.
      const missing = "1";
      const lookup = await server.get(`/2/tweets?ids=${examples.tweet_id},${missing}`, key, {
        headers: { "x-max-credits": "2" },
      });
      expect(await lookup.json()).toEqual({ data: [expect.objectContaining({ id: examples.tweet_id })] });
      expect(lookup.headers.get("x-credits-capped")).toBe("true");
      const bad = await server.get(`/2/tweets/${examples.tweet_id}`, key, { headers: { "x-max-credits": "none" } });
      expect(bad.status).toBe(400);
    });
  });

  describe("over MCP", () => {
    it("tools take max_credits and dry_run, and their descriptions state the most a call costs", async () => {
      const { accountId, key } = await server.account();
      const client = new Client({ name: "budget-test", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${key}` } },
        }),
      );
      try {
        const { tools } = await client.listTools();
        const timeline = tools.find((tool) => tool.name === (endpointsById.get("user_tweets")?.tool ?? ""));
        expect(timeline?.description).toContain("at most 21 credits");
        expect(Object.keys(timeline?.inputSchema.properties ?? {})).toEqual(
          expect.arrayContaining(["max_credits", "dry_run"]),
        );
        const name = endpointsById.get("user_tweets")?.tool ?? "";
        const quoted = await client.callTool({ name, arguments: { id: examples.user_id, dry_run: true } });
        expect(quoted.structuredContent).toEqual({
          data: null,
          credits: { charged: 0, remaining: 1000, max: 21, rule: "1 credit + 1 per returned item" },
          dry_run: true,
        });
        const capped = await client.callTool({ name, arguments: { id: examples.user_id, max_credits: 4 } });
        const result = capped.structuredContent as Body["meta"] & { data: unknown[] };
        expect(result.data.length).toBe(3);
        expect(result.credits).toEqual({ charged: 4, remaining: 996, capped: true });
        const low = await client.callTool({ name, arguments: { id: examples.user_id, max_credits: 1 } });
        expect(low.isError).toBe(true);
        expect(JSON.stringify(low.content)).toContain("max_credits must be at least 2");
        expect(await server.balance(accountId)).toBe(996);
      } finally {
        await client.close();
      }
    });
  });
});
