// What a caller can know and bound before paying, over real HTTP and the MCP SDK's client, on both
// adapters: dry_run's quote (free, never below the charge) and max_credits's cap (a page shortened to
// what it covers, continued by its next_token, never charged above it).
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  catalogue,
  costOf,
  costRuleFor,
  DryRunEnvelopeSchema,
  endpointsById,
  type KeyOptions,
  validateParams,
} from "@social/core";
import { exampleParams, examples } from "@social/fixtures";
import * as v from "valibot";
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

  /** The MCP SDK's client on the server's /mcp, with `key`. */
  async function mcpClient(key: string): Promise<Client> {
    const client = new Client({ name: "budget-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    return client;
  }

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

    it("on /2: the same quote in meta, free, with the credit headers", async () => {
      const { accountId, key } = await server.account();
      const quoted = await server.get(`/2/users/${examples.user_id}/tweets?max_results=50&dry_run=true`, key);
      expect(quoted.status).toBe(200);
      expect(await quoted.json()).toEqual({
        meta: {
          dry_run: true,
          credits: { charged: 0, remaining: 1000, max: 51, rule: "1 credit + 1 per returned item" },
        },
      });
      expect(quoted.headers.get("x-credits-charged")).toBe("0");
      const capped = await server.get(`/2/tweets/search/recent?query=a&dry_run=true&max_credits=4`, key);
      expect(((await capped.json()) as Body).meta.credits).toMatchObject({ max: 4, capped: true });
      expect(await server.balance(accountId)).toBe(1000);
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
      let unchanged = 0;
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
        // A cap the request fits under changes nothing it returns.
        if (uncapped.meta.credits.charged <= cap) {
          expect(capped.data).toEqual(uncapped.data);
          unchanged++;
        }
      }
      // The flat lookups at least, whose cap is their whole price.
      expect(unchanged).toBeGreaterThanOrEqual(
        catalogue.filter((endpoint) => "kind" in endpoint.cost && endpoint.cost.kind === "flat").length,
      );
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

  describe("a 402 on /2", () => {
    it("names the largest request that fits in /2's own parameters, within their bounds", async () => {
      const details = async (credits: number, path: string) => {
        const { key } = await server.account(credits);
        const response = await server.get(path, key);
        expect(response.status).toBe(402);
        return ((await response.json()) as { error: { details: { fits?: unknown } } }).error.details;
      };
      const search = `/2/tweets/search/recent?query=${encodeURIComponent(examples.search_query)}&max_results=20`;
      expect(await details(8, search)).toMatchObject({ required: 21, remaining: 8, fits: { max_results: 7 } });
      const { key } = await server.account();
      const found = await read(
        await server.get(`/v1/search/recent?query=${encodeURIComponent(examples.search_query)}&limit=5`, key),
      );
      const five = ids(found.data).join(",");
      expect(await details(3, `/2/tweets?ids=${five}`)).toMatchObject({ required: 6, fits: { ids: 2 } });
      // max_results is 5 to 100 on a user's tweets: 3 items would be a request nobody can send.
      const timeline = await details(4, `/2/users/${examples.user_id}/tweets`);
      expect(timeline).toMatchObject({ required: 21, remaining: 4 });
      expect(timeline.fits).toBeUndefined();
    });
  });

  describe("a key's own limit and expiry", () => {
    async function limitedKey(options: KeyOptions, credits = 1000) {
      const { account, key } = await server.backend.accounts.openAccount("limited", credits, options);
      return { accountId: account.id, key: key.key, keyId: key.keyId };
    }

    it("64 concurrent requests never take a key past its limit; the rest are 402 key_limit, uncharged", async () => {
      const { accountId, key } = await limitedKey({ limit: { credits: 30, per: "total" } });
      const answers = await Promise.all(
        Array.from({ length: 64 }, () => server.get(`/v1/tweets/${examples.tweet_id}`, key)),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 200).length).toBe(30);
      expect(statuses.filter((status) => status === 402).length).toBe(34);
      const refusal = (await (answers[statuses.indexOf(402)] as Response).json()) as { error: { details: unknown } };
      expect(refusal.error.details).toEqual({
        reason: "key_limit",
        required: 1,
        remaining: 0,
        limit: { credits: 30, per: "total" },
      });
      expect(await server.balance(accountId)).toBe(970);
      expect(await server.usageTotal(accountId)).toBe(30);
    });

    it("a 402 for the key's limit says so on /v1, /2 and MCP, with the largest request that fits", async () => {
      const { key, keyId } = await limitedKey({ limit: { credits: 4, per: "day" } });
      const search = `query=${encodeURIComponent(examples.search_query)}`;
      const v1 = await server.get(`/v1/search/recent?${search}`, key);
      expect(v1.status).toBe(402);
      const body = (await v1.json()) as { error: { message: string; details: unknown; help_url: string } };
      expect(body.error.details).toEqual({
        reason: "key_limit",
        required: 21,
        remaining: 4,
        limit: { credits: 4, per: "day" },
        fits: { limit: 3 },
      });
      expect(body.error.message).toContain("this API key's limit of 4 credits per UTC day leaves 4");
      // The key's own page is where its limit is raised; the balance's 402 keeps pointing at billing.
      expect(body.error.message).toContain("Raise the limit on this key's page in the dashboard (help_url)");
      expect(body.error.help_url).toBe(`${server.url}/dashboard/keys/${keyId}`);
      const v2 = await server.get(`/2/tweets/search/recent?${search}&max_results=20`, key);
      expect(v2.status).toBe(402);
      expect(((await v2.json()) as { error: { help_url: string } }).error.help_url).toBe(body.error.help_url);

      const client = await mcpClient(key);
      try {
        const name = endpointsById.get("search_recent")?.tool ?? "";
        const result = await client.callTool({ name, arguments: { query: examples.search_query } });
        expect(result.isError).toBe(true);
        expect(JSON.stringify(result.content)).toContain(
          "this API key's limit of 4 credits per UTC day leaves 4. The same call with limit=3 fits the key's limit now.",
        );
        // The cap that fits is accepted.
        const fitted = await client.callTool({ name, arguments: { query: examples.search_query, limit: 3 } });
        expect(fitted.structuredContent).toMatchObject({ credits: { charged: 4 } });
      } finally {
        await client.close();
      }
    });

    it("an expired key is 401 with its own message, on /v1, /2 and MCP, and nothing is charged", async () => {
      const expiresAt = Date.now() - 1000;
      const { accountId, key } = await limitedKey({ expiresAt });
      const message = `This API key expired at ${new Date(expiresAt).toISOString()}: create a new one in the dashboard`;
      const v1 = await server.get(`/v1/tweets/${examples.tweet_id}`, key);
      expect(v1.status).toBe(401);
      expect(((await v1.json()) as { error: { message: string } }).error.message).toBe(message);
      expect((await server.get(`/2/tweets/${examples.tweet_id}`, key)).status).toBe(401);
      const mcp = await fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(mcp.status).toBe(401);
      expect(await server.balance(accountId)).toBe(1000);
    });
  });

  describe("Idempotency-Key", () => {
    const retry = (idempotencyKey: string) => ({ headers: { "idempotency-key": idempotencyKey } });

    it("a retry gets the first answer again, marked replayed, and is not charged again", async () => {
      const { accountId, key } = await server.account();
      const path = `/v1/users/${examples.user_id}/tweets`;
      const first = await server.get(path, key, retry("order-1"));
      const firstBody = await first.text();
      const charged = (JSON.parse(firstBody) as Body).meta.credits.charged;
      expect(first.headers.get("idempotent-replayed")).toBeNull();
      const again = await server.get(path, key, retry("order-1"));
      expect(again.status).toBe(200);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(again.headers.get("x-request-id")).toBe(first.headers.get("x-request-id"));
      expect(await again.text()).toBe(firstBody);
      expect(await server.balance(accountId)).toBe(1000 - charged);
      expect(await server.usageTotal(accountId)).toBe(charged);

      // /2 keeps its own answers: the same key there is another request.
      const v2 = await server.get(`/2/users/${examples.user_id}/tweets`, key, retry("order-2"));
      const v2Again = await server.get(`/2/users/${examples.user_id}/tweets`, key, retry("order-2"));
      expect(v2Again.headers.get("idempotent-replayed")).toBe("true");
      expect(v2Again.headers.get("x-credits-charged")).toBe(v2.headers.get("x-credits-charged"));
      expect(await v2Again.text()).toBe(await v2.text());
      expect(await server.balance(accountId)).toBe(1000 - charged - Number(v2.headers.get("x-credits-charged")));
    });

    it("64 identical requests in flight at once are charged once and all get the one answer", async () => {
      const { accountId, key } = await server.account();
      const path = `/v1/search/recent?query=${encodeURIComponent(examples.search_query)}`;
      const answers = await Promise.all(Array.from({ length: 64 }, () => server.get(path, key, retry("burst"))));
      expect(answers.map((answer) => answer.status)).toEqual(Array(64).fill(200));
      const bodies = new Set(await Promise.all(answers.map((answer) => answer.text())));
      expect(bodies.size).toBe(1);
      const charged = (JSON.parse([...bodies][0] as string) as Body).meta.credits.charged;
      expect(answers.filter((answer) => answer.headers.get("idempotent-replayed") === "true")).toHaveLength(63);
      expect(await server.balance(accountId)).toBe(1000 - charged);
      expect(await server.usageTotal(accountId)).toBe(charged);
    });

    it("the same key for another request, or a key that is not 1-255 printable characters, is 400, uncharged", async () => {
      const { accountId, key } = await server.account();
      await server.get(`/v1/tweets/${examples.tweet_id}`, key, retry("used"));
      const other = await read(await server.get(`/v1/tweets/${examples.quoted_tweet_id}`, key, retry("used")));
      expect(other.error?.details).toEqual([
        {
          parameter: "Idempotency-Key",
          message: "was already used for a different request: send a new key for a new request",
        },
      ]);
      for (const bad of ["x".repeat(256), "tab\there"]) {
        const answer = await read(await server.get(`/v1/tweets/${examples.tweet_id}`, key, retry(bad)));
        expect(answer.error?.details?.[0]?.parameter).toBe("Idempotency-Key");
      }
      expect(await server.balance(accountId)).toBe(999);
    });

    it("a failed request stores nothing: its retry runs afresh once it can succeed", async () => {
      const { accountId, key } = await server.account(0);
      const path = `/v1/tweets/${examples.tweet_id}`;
      expect((await server.get(path, key, retry("after-top-up"))).status).toBe(402);
      await server.backend.accounts.grantCredits(accountId, 5);
      // Granted from another process: on PostgreSQL the server's key check hears of it by a
      // notification. A quote shows the balance that check holds.
      for (let waited = 0; waited < 2000; waited += 10) {
        if ((await read(await server.get(`${path}?dry_run=true`, key))).meta.credits.remaining === 5) break;
        await Bun.sleep(10);
      }
      const paid = await server.get(path, key, retry("after-top-up"));
      expect(paid.status).toBe(200);
      expect(paid.headers.get("idempotent-replayed")).toBeNull();
      expect(await server.balance(accountId)).toBe(4);
    });

    it("over MCP, idempotency_key makes a repeated call return the first result, marked replayed, uncharged", async () => {
      const { accountId, key } = await server.account();
      const client = await mcpClient(key);
      try {
        const name = endpointsById.get("user_tweets")?.tool ?? "";
        const args = { id: examples.user_id, idempotency_key: "agent-step-7" };
        const first = await client.callTool({ name, arguments: args });
        expect(first.structuredContent).not.toHaveProperty("replayed");
        const again = await client.callTool({ name, arguments: args });
        expect(again.structuredContent).toEqual({ ...(first.structuredContent as object), replayed: true });
        const charged = (first.structuredContent as { credits: { charged: number } }).credits.charged;
        expect(await server.balance(accountId)).toBe(1000 - charged);
        const changed = await client.callTool({ name, arguments: { ...args, max_credits: 3 } });
        expect(changed.isError).toBe(true);
        expect(JSON.stringify(changed.content)).toContain("`idempotency_key` was already used for a different request");
      } finally {
        await client.close();
      }
    });
  });

  describe("64 concurrent MCP calls", () => {
    const tweetTool = endpointsById.get("tweet")?.tool ?? "";
    const searchTool = endpointsById.get("search_recent")?.tool ?? "";

    it("never take a key past its limit; the rest are key_limit errors, uncharged", async () => {
      const { account, key } = await server.backend.accounts.openAccount("agent", 1000, {
        limit: { credits: 30, per: "total" },
      });
      const client = await mcpClient(key.key);
      try {
        const results = await Promise.all(
          Array.from({ length: 64 }, () => client.callTool({ name: tweetTool, arguments: { id: examples.tweet_id } })),
        );
        expect(results.filter((result) => !result.isError)).toHaveLength(30);
        const refused = results.filter((result) => result.isError);
        expect(refused).toHaveLength(34);
        for (const result of refused) expect(JSON.stringify(result.content)).toContain("insufficient_credits");
        expect(await server.balance(account.id)).toBe(970);
        expect(await server.usageTotal(account.id)).toBe(30);
      } finally {
        await client.close();
      }
    });

    it("with one idempotency_key are charged once, and all get the first result", async () => {
      const { accountId, key } = await server.account();
      const client = await mcpClient(key);
      try {
        const args = { query: examples.search_query, idempotency_key: "agent-burst" };
        const results = await Promise.all(
          Array.from({ length: 64 }, () => client.callTool({ name: searchTool, arguments: args })),
        );
        expect(results.filter((result) => result.isError)).toEqual([]);
        const isReplay = (result: (typeof results)[number]) =>
          (result.structuredContent as { replayed?: true } | undefined)?.replayed === true;
        const firsts = results.filter((result) => !isReplay(result));
        expect(firsts).toHaveLength(1);
        const first = firsts[0]?.structuredContent as { credits: { charged: number } };
        for (const retry of results.filter(isReplay))
          expect(retry.structuredContent).toEqual({ ...first, replayed: true });
        const charged = first.credits.charged;
        expect(charged).toBeGreaterThan(1);
        expect(await server.balance(accountId)).toBe(1000 - charged);
        expect(await server.usageTotal(accountId)).toBe(charged);
      } finally {
        await client.close();
      }
    });
  });

  describe("over MCP", () => {
    it("tools take max_credits and dry_run, and their descriptions state the most a call costs", async () => {
      const { accountId, key } = await server.account();
      const client = await mcpClient(key);
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
        expect(JSON.stringify(low.content)).toContain("`max_credits` must be at least 2");
        expect(await server.balance(accountId)).toBe(996);
        // get_credits: what is left, free.
        const credits = await client.callTool({ name: "get_credits", arguments: {} });
        expect(credits.structuredContent).toMatchObject({
          data: { account_id: accountId, balance: 996, key: { limit: null, expires_at: null } },
          credits: { charged: 0, remaining: 996 },
        });
        expect(await server.balance(accountId)).toBe(996);
      } finally {
        await client.close();
      }
    });
  });
});
