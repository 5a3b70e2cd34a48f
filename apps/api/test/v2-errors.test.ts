// /2 failures and headers: twitter-api-v2's ApiResponseError on 400, 401, 402, 404 and 429 with both
// this service's error object and X API v2's problem members, nothing charged; the success headers; the
// pagination parameters; and the /2 paths in /openapi.json.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { catalogue, costRuleFor, describeCostRule } from "@social/core";
import { examples } from "@social/fixtures";
import { ApiResponseError } from "twitter-api-v2";
import { startTestServer, type TestServer } from "./harness.ts";
import { twitterClient } from "./x-clients.ts";

let server: TestServer;
// The first server of a test process builds the fixture world, which can take longer than a hook's default 5 s.
beforeAll(async () => {
  server = await startTestServer();
}, 60_000);
afterAll(() => server.close());

const PROBLEMS = "https://api.twitter.com/2/problems/";

interface ProblemBody {
  error: { code: string; message: string; request_id: string; help_url?: string };
  title: string;
  detail: string;
  type: string;
  status: number;
  errors: { parameters?: Record<string, string[]>; message: string }[];
}

async function responseError(call: () => Promise<unknown>): Promise<ApiResponseError & { data: ProblemBody }> {
  try {
    await call();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiResponseError);
    return error as ApiResponseError & { data: ProblemBody };
  }
  throw new Error("the call succeeded");
}

function expectProblem(error: ApiResponseError & { data: ProblemBody }, status: number, code: string, type: string) {
  expect(error.code).toBe(status);
  expect(error.data.status).toBe(status);
  expect(error.data.error.code).toBe(code);
  expect(error.data.error.request_id).toBe(error.headers["x-request-id"] as string);
  expect(error.data.type).toBe(type);
  expect(error.data.title.length).toBeGreaterThan(3);
  expect(error.data.detail).toBe(error.data.error.message);
  expect(error.message).toContain(error.data.title);
}

describe("twitter-api-v2 ApiResponseError", () => {
  it("400 names the parameter and its raw value in errors[].parameters, not charged", async () => {
    const { accountId, key } = await server.account();
    const client = twitterClient(server, key);
    const cases: [() => Promise<unknown>, string, string[]][] = [
      [() => client.v2.search(examples.search_query, { max_results: 21 }), "max_results", ["21"]],
      [() => client.v2.userTimeline(examples.user_id, { max_results: 4 }), "max_results", ["4"]],
      [() => client.v2.followers(examples.user_id, { max_results: 1001 }), "max_results", ["1001"]],
      [
        () => client.v2.singleTweet(examples.tweet_id, { "tweet.fields": ["public_metrics", "nope" as "lang"] }),
        "tweet.fields",
        ["public_metrics,nope"],
      ],
      [() => client.v2.user(examples.user_id, { "user.fields": ["bogus" as "url"] }), "user.fields", ["bogus"]],
      [
        () => client.v2.search(examples.search_query, { expansions: ["pinned_tweet_id.nope" as "author_id"] }),
        "expansions",
        ["pinned_tweet_id.nope"],
      ],
      [() => client.v2.search(examples.search_query, { sort_order: "oldest" as "recency" }), "sort_order", ["oldest"]],
      [() => client.v2.search(examples.search_query, { since_id: "12x" }), "since_id", ["12x"]],
      [
        () => client.v2.search(examples.search_query, { start_time: "2026-02-30T00:00:00Z" }),
        "start_time",
        ["2026-02-30T00:00:00Z"],
      ],
      [
        () => client.v2.userTimeline(examples.user_id, { exclude: ["replies", "likes" as "retweets"] }),
        "exclude",
        ["replies,likes"],
      ],
      [() => client.v2.user("12ab"), "id", ["12ab"]],
    ];
    for (const [call, parameter, raw] of cases) {
      const error = await responseError(call);
      expectProblem(error, 400, "invalid_request", `${PROBLEMS}invalid-request`);
      expect(error.data.errors).toContainEqual({ parameters: { [parameter]: raw }, message: expect.any(String) });
    }
    const unknownField = await responseError(() =>
      client.v2.tweets([examples.tweet_id], { "tweet.fields": ["nope" as "lang"] }),
    );
    expect(unknownField.data.errors[0]?.message).toContain("public_metrics");
    expect(await server.balance(accountId)).toBe(1000);
  });

  it("401 for a wrong or revoked key, before validation", async () => {
    const wrong = await responseError(() => twitterClient(server, "sk_live_wrong").v2.user(examples.user_id));
    expectProblem(wrong, 401, "invalid_api_key", "about:blank");
    expect(wrong.isAuthError).toBe(true);
    expect(wrong.data.title).toBe("Unauthorized");

    const { key, keyId } = await server.account();
    await server.revoke(keyId);
    const revoked = await responseError(() =>
      twitterClient(server, key).v2.search(examples.search_query, { max_results: 99 }),
    );
    expectProblem(revoked, 401, "revoked_api_key", "about:blank");
  });

  it("402 when the balance does not cover the /v1 price, with help_url, not charged", async () => {
    const { accountId, key } = await server.account(3);
    const error = await responseError(() =>
      twitterClient(server, key).v2.search(examples.search_query, { max_results: 5 }),
    );
    expectProblem(error, 402, "insufficient_credits", `${PROBLEMS}usage-capped`);
    expect(error.data.error.help_url).toMatch(/\/billing$/);
    expect(await server.balance(accountId)).toBe(3);
  });

  it("404 below a missing user or list and on an unknown /2 path, not charged", async () => {
    const { accountId, key } = await server.account();
    const client = twitterClient(server, key);
    for (const call of [
      () => client.v2.followers("999999999999"),
      () => client.v2.listTweets("999999999999"),
      () => client.v2.get("spaces/search", { query: "x" }),
    ]) {
      expectProblem(await responseError(call), 404, "endpoint_not_found", `${PROBLEMS}resource-not-found`);
    }
    expect(await server.balance(accountId)).toBe(1000);
  });

  it("429 past the rate limit, with the rate-limit headers the client reads, not charged", async () => {
    const limited = await startTestServer({ rateLimit: { ratePerSecond: 1, burst: 2 } });
    try {
      const { accountId, key } = await limited.account();
      const client = twitterClient(limited, key);
      await client.v2.user(examples.user_id);
      await client.v2.user(examples.user_id);
      const error = await responseError(() => client.v2.user(examples.user_id));
      expectProblem(error, 429, "rate_limited", "about:blank");
      expect(error.rateLimitError).toBe(true);
      expect(error.rateLimit).toMatchObject({ limit: 2, remaining: 0 });
      expect(Number(error.headers["retry-after"])).toBeGreaterThanOrEqual(1);
      expect(await limited.balance(accountId)).toBe(998);
    } finally {
      await limited.close();
    }
  });
});

describe("/2 over plain HTTP", () => {
  it("success carries x-request-id, x-credits-charged (= /v1's for the same page), x-credits-remaining, rate limits", async () => {
    const { key } = await server.account();
    const q = encodeURIComponent(examples.search_query);
    const v2 = await server.get(`/2/tweets/search/recent?query=${q}&max_results=5`, key);
    const v1 = (await (await server.get(`/v1/search/recent?query=${q}&limit=5`, key)).json()) as {
      meta: { credits: { charged: number; remaining: number } };
    };
    expect(v2.status).toBe(200);
    expect(v2.headers.get("x-request-id")).toMatch(/^req_/);
    expect(Number(v2.headers.get("x-credits-charged"))).toBe(v1.meta.credits.charged);
    expect(Number(v2.headers.get("x-credits-remaining"))).toBe(v1.meta.credits.remaining + v1.meta.credits.charged);
    for (const header of ["x-rate-limit-limit", "x-rate-limit-remaining", "x-rate-limit-reset"]) {
      expect(v2.headers.get(header)).toMatch(/^\d+$/);
    }
    const body = (await v2.json()) as { data: { id: string }[]; meta: Record<string, unknown> };
    expect(Object.keys(body.meta).sort()).toEqual(["newest_id", "next_token", "oldest_id", "result_count"]);
    expect(body.meta.newest_id).toBe(body.data[0]?.id);
  });

  it("pagination_token and next_token continue alike; both at once is 400", async () => {
    const { key } = await server.account();
    const path = `/2/users/${examples.user_id}/followers?max_results=3`;
    const first = (await (await server.get(path, key)).json()) as { meta: { next_token: string } };
    const token = first.meta.next_token;
    const byPagination = await (await server.get(`${path}&pagination_token=${token}`, key)).json();
    const byNext = await (await server.get(`${path}&next_token=${token}`, key)).json();
    expect(byPagination).toEqual(byNext);
    const both = await server.get(`${path}&pagination_token=${token}&next_token=${token}`, key);
    expect(both.status).toBe(400);
    const problem = (await both.json()) as ProblemBody;
    expect(problem.errors[0]?.parameters).toEqual({ pagination_token: [token] });
    const tampered = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`;
    const refused = await server.get(`${path}&pagination_token=${tampered}`, key);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as ProblemBody).errors[0]?.parameters).toEqual({ pagination_token: [tampered] });
  });

  it("an empty page is {meta: {result_count: 0}}, charged the /v1 base credit", async () => {
    const { key } = await server.account();
    const response = await server.get("/2/tweets/search/recent?query=zqxjvkwpfh", key);
    expect(await response.json()).toEqual({ meta: { result_count: 0 } });
    expect(response.headers.get("x-credits-charged")).toBe("1");
  });

  it("other methods and unknown /2 paths answer the problem body", async () => {
    const { key } = await server.account();
    const post = await server.get(`/2/users/${examples.user_id}`, key, { method: "POST" });
    expect(post.status).toBe(404);
    expect(post.headers.get("allow")).toBe("GET");
    expect(((await post.json()) as ProblemBody).error.code).toBe("endpoint_not_found");
    const unknown = (await (await server.get("/2/nothing/here", key)).json()) as ProblemBody;
    expect(unknown).toMatchObject({ status: 404, title: "Not Found Error", error: { code: "endpoint_not_found" } });
  });
});

describe("/openapi.json", () => {
  it("describes the 17 /2 paths with their parameters and the /v1 counterpart's cost", async () => {
    const doc = (await (await server.get("/openapi.json")).json()) as {
      paths: Record<string, { get?: { description: string; parameters: { name: string }[] } }>;
    };
    const mapped = catalogue.flatMap((endpoint) => (endpoint.v2 ? [{ endpoint, v2: endpoint.v2 }] : []));
    expect(mapped).toHaveLength(17);
    for (const {
      endpoint,
      v2: { path, resource },
    } of mapped) {
      const operation = doc.paths[path]?.get;
      const cost = describeCostRule(costRuleFor(endpoint, { mode: "profiles" }));
      expect(operation?.description).toContain(`Cost: ${cost}`);
      const names = operation?.parameters.map((parameter) => parameter.name) ?? [];
      const own =
        resource === "count" ? ["query", "granularity", "search_count.fields"] : ["tweet.fields", "user.fields"];
      expect(names).toEqual(expect.arrayContaining(own));
      if (endpoint.pageSize)
        expect(names).toEqual(expect.arrayContaining(["max_results", "pagination_token", "next_token"]));
    }
  });
});
