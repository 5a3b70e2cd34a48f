// Every error code of SPEC.md reached over real HTTP, each in the envelope, none of them charged.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { examples } from "@social/fixtures";
import { startTestServer, type TestServer } from "./harness.ts";
import { record } from "./responses.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

interface ErrorBody {
  error: { code: string; message: string; request_id: string; details?: { parameter?: string }[]; help_url?: string };
}

async function expectError(response: Response, status: number, code: string): Promise<ErrorBody["error"]> {
  const body = (await record(response)) as ErrorBody;
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toContain("application/json");
  expect(body.error.code).toBe(code);
  expect(body.error.request_id).toBe(response.headers.get("x-request-id") as string);
  expect(body.error.message.length).toBeGreaterThan(5);
  return body.error;
}

describe("authentication", () => {
  it("401 invalid_api_key without a key, with an unknown key, or a malformed header; with rate-limit headers", async () => {
    const variants: Record<string, string>[] = [
      {},
      { authorization: "Bearer sk_live_nope" },
      { authorization: "Basic abc" },
      { authorization: "Bearer" },
    ];
    for (const headers of variants) {
      const response = await server.get(`/v1/tweets/${examples.tweet_id}`, undefined, { headers });
      await expectError(response, 401, "invalid_api_key");
      expect(response.headers.get("x-rate-limit-limit")).toMatch(/^\d+$/);
    }
  });

  it("401 revoked_api_key after revocation, before validation", async () => {
    const { key, keyId } = await server.account();
    expect((await server.get(`/v1/tweets/${examples.tweet_id}`, key)).status).toBe(200);
    await server.revoke(keyId);
    await expectError(await server.get(`/v1/tweets/${examples.tweet_id}`, key), 401, "revoked_api_key");
    await expectError(await server.get("/v1/tweets/not-a-number", key), 401, "revoked_api_key");
  });
});

describe("validation", () => {
  it("400 names the parameter and the rule, and charges nothing", async () => {
    const { accountId, key } = await server.account();
    const cases: [string, string][] = [
      ["/v1/tweets/12ab", "id"],
      ["/v1/search/recent", "query"],
      ["/v1/search/recent?query=cats&limit=21", "limit"],
      ["/v1/search/recent?query=cats&limit=0", "limit"],
      ["/v1/search/recent?query=cats&limit=2.5", "limit"],
      ["/v1/search/recent?query=cats&sort_order=oldest", "sort_order"],
      ["/v1/search/recent?query=(cats", "query"],
      ["/v1/search/recent?query=since:2026-02-30", "query"],
      ["/v1/search/recent?query=cats&query=dogs", "query"],
      [`/v1/users/${examples.user_id}/followers?limit=10`, "limit"],
      [`/v1/users/${examples.user_id}/followers?mode=ids&limit=5001`, "limit"],
      [`/v1/users/${examples.user_id}/tweets?limit=5`, "limit"],
      [`/v1/communities/${examples.community_id}/tweets?sort=recency&time_filter=day`, "time_filter"],
      ["/v1/trends?limit=101", "limit"],
      ["/v1/users/by-username/not-valid!", "username"],
      ["/v1/users?ids=1,,2", "ids"],
      [`/v1/tweets/${examples.tweet_id}?unexpected=1`, "unexpected"],
      ["/v1/users/%zz", "id"],
    ];
    for (const [path, parameter] of cases) {
      const error = await expectError(await server.get(path, key), 400, "invalid_request");
      expect(error.details?.map((d) => d.parameter)).toContain(parameter);
      expect(error.message).toContain(parameter);
    }
    expect(await server.balance(accountId)).toBe(1000);
    expect(await server.usageTotal(accountId)).toBe(0);
  });

  it("400 for oversized URLs and request bodies", async () => {
    const { key } = await server.account();
    await expectError(await server.get(`/v1/search/recent?query=${"a".repeat(9000)}`, key), 400, "invalid_request");
    const withBody = await server.get(`/v1/tweets/${examples.tweet_id}`, key, {
      method: "POST",
      body: "x".repeat(20_000),
    });
    expect(withBody.status).toBe(400);
  });
});

describe("not found", () => {
  it("404 for unknown paths, missing resources and other methods, uncharged", async () => {
    const { accountId, key } = await server.account();
    await expectError(await server.get("/v2/nothing", key), 404, "endpoint_not_found");
    await expectError(await server.get("/v1/tweets/1", key), 404, "endpoint_not_found");
    await expectError(await server.get("/v1/users/by-username/nobody_here_x", key), 404, "endpoint_not_found");
    await expectError(await server.get("/v1/users/1/followers", key), 404, "endpoint_not_found");
    await expectError(await server.get("/v1/trends?woeid=424242", key), 404, "endpoint_not_found");
    const post = await server.get(`/v1/tweets/${examples.tweet_id}`, key, { method: "DELETE" });
    await expectError(post, 404, "endpoint_not_found");
    expect(post.headers.get("allow")).toBe("GET");
    const head = await server.get(`/v1/tweets/${examples.tweet_id}`, key, { method: "HEAD" });
    expect(head.status).toBe(404);
    expect(head.headers.get("allow")).toBe("GET");
    expect(await server.balance(accountId)).toBe(1000);
  });
});

describe("credits", () => {
  it("402 with help_url, the needed and remaining credits, and no charge when the cost exceeds the balance", async () => {
    const { accountId, key } = await server.account(5);
    const error = await expectError(
      await server.get(`/v1/users/${examples.user_id}/tweets`, key),
      402,
      "insufficient_credits",
    );
    expect(error.help_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/billing$/);
    expect(error.message).toMatch(/costs 21 credits and the account has 5 remaining/);
    expect(await server.balance(accountId)).toBe(5);
    const exact = await server.get(`/v1/tweets/${examples.tweet_id}`, key);
    expect(exact.status).toBe(200);
    expect(await server.balance(accountId)).toBe(4);
  });

  it("charges exactly the whole balance when the cost equals it", async () => {
    const { accountId, key } = await server.account(1);
    const response = await server.get(`/v1/tweets/${examples.tweet_id}`, key);
    expect(((await response.json()) as { meta: { credits: unknown } }).meta.credits).toEqual({
      charged: 1,
      remaining: 0,
    });
    await expectError(await server.get(`/v1/tweets/${examples.tweet_id}`, key), 402, "insufficient_credits");
    expect(await server.balance(accountId)).toBe(0);
  });
});

describe("rate limits", () => {
  it("429 with Retry-After after the burst, uncharged, per key", async () => {
    const limited = await startTestServer({ rateLimit: { ratePerSecond: 1, burst: 3 } });
    try {
      const { accountId, key } = await limited.account();
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await limited.get(`/v1/tweets/${examples.tweet_id}`, key)).status);
      expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
      const response = await limited.get(`/v1/tweets/${examples.tweet_id}`, key);
      await expectError(response, 429, "rate_limited");
      expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(response.headers.get("x-rate-limit-remaining")).toBe("0");
      expect(await limited.balance(accountId)).toBe(1000 - statuses.filter((s) => s === 200).length);
      const other = await limited.account();
      expect((await limited.get(`/v1/tweets/${examples.tweet_id}`, other.key)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe("the demo", () => {
  it("serves a profile and a search without a key, shared and never charged", async () => {
    const before = server.sqlite().query("SELECT COUNT(*) AS n FROM usage").get() as { n: number };
    const first = (await record(await server.get("/demo"))) as {
      data: { user: { username: string } };
      meta: { credits: unknown };
    };
    const second = (await record(await server.get("/demo"))) as { data: unknown };
    expect(first.data.user.username.toLowerCase()).toBe(examples.username.toLowerCase());
    expect(second.data).toEqual(first.data);
    expect(first.meta.credits).toEqual({ charged: 0, remaining: 0 });
    const search = (await record(await server.get("/demo?run=search"))) as { data: unknown[] };
    expect(search.data.length).toBe(20);
    await expectError(await server.get("/demo?run=nope"), 400, "invalid_request");
    expect(server.sqlite().query("SELECT COUNT(*) AS n FROM usage").get()).toEqual(before);
  });
});

describe("failures of the service", () => {
  it("503 service_unavailable on /v1 and /2 while the database cannot be written, without internals, uncharged", async () => {
    const broken = await startTestServer();
    const { accountId, key } = await broken.account();
    // Another connection takes the write lock and holds it past the busy timeout of every debit.
    broken.sqlite().run("PRAGMA busy_timeout = 0");
    broken.sqlite().run("BEGIN EXCLUSIVE");
    try {
      const [v1, v2] = await Promise.all([
        broken.get(`/v1/tweets/${examples.tweet_id}`, key),
        broken.get(`/2/tweets/${examples.tweet_id}`, key),
      ]);
      const error = await expectError(v1, 503, "service_unavailable");
      expect(error.message).toBe("The service is temporarily unavailable: retry in a few seconds");
      // /2 wraps the same error object in X API v2's problem members.
      const problem = await v2.clone().json();
      await expectError(v2, 503, "service_unavailable");
      expect(problem).toMatchObject({
        title: "Service Unavailable",
        type: "about:blank",
        status: 503,
        detail: error.message,
        errors: [{ message: error.message }],
      });
      expect(await broken.balance(accountId)).toBe(1000);
    } finally {
      broken.sqlite().run("ROLLBACK");
      await broken.close();
    }
  }, 30_000);
});

describe("request logs", () => {
  it("one line per request with id, path, status, credits and duration, never the key", async () => {
    const { key } = await server.account();
    const response = await server.get(`/v1/tweets/${examples.tweet_id}`, key);
    const id = response.headers.get("x-request-id");
    await response.text();
    // The line is written once the answer has gone out.
    const line = await server.logLine(id);
    expect(line).toMatchObject({ method: "GET", path: `/v1/tweets/${examples.tweet_id}`, status: 200, credits: 1 });
    expect(typeof line?.ms).toBe("number");
    expect(server.logs.join("\n")).not.toContain(key);
  });

  it("answers no route serves are logged too: an unknown path, a refused method, a request refused before routing", async () => {
    const answers = [
      { response: await server.get("/v1/nothing-here"), status: 404, path: "/v1/nothing-here" },
      {
        response: await server.get(`/v1/tweets/${examples.tweet_id}`, undefined, { method: "DELETE" }),
        status: 404,
        path: `/v1/tweets/${examples.tweet_id}`,
      },
      { response: await server.get(`/docs?pad=${"x".repeat(9000)}`), status: 400, path: "/docs" },
    ];
    for (const { response, status, path } of answers) {
      expect(response.status).toBe(status);
      await response.text();
      const line = await server.logLine(response.headers.get("x-request-id"));
      expect(line).toMatchObject({ path, status, credits: 0 });
    }
  });
});
