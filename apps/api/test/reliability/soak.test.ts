// The soak at CI size through the same code as `bun run soak`, and the edge it relies on: a request
// that costs more than the balance is refused whole, never charged down to zero.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { CreditRefusal } from "@social/core";
import { examples } from "@social/fixtures";
import { startTestServer, type TestServer } from "../harness.ts";
import { readAnswer } from "./answer.ts";
import { runSoak } from "./soak.ts";

describe("soak", () => {
  it("3,000 mixed requests from 64 clients over 8 accounts: the ledger balances, no 5xx", async () => {
    const report = await runSoak({ requests: 3000, concurrency: 64, accounts: 8, maxSeconds: 45 });
    expect(report.discrepancies).toEqual([]);
    // A pair sent at once with one Idempotency-Key is one answer, or two when the first failed.
    expect(report.requests).toBeGreaterThanOrEqual(3000);
    expect(Object.keys(report.statuses).every((status) => Number(status) < 500)).toBe(true);
    expect(report.statuses["200"]).toBeGreaterThan(0);
    // Half the accounts are granted too little: the run must actually cross the 402 edge.
    expect(report.accountsRefused).toBeGreaterThan(0);
    // Keys with limits of their own met them, and (in discrepancies) none spent past them.
    expect(report.keyLimitRefusals).toBeGreaterThan(0);
  }, 90_000);
});

describe("a request that costs more than the balance", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  const search = `/v1/search/recent?query=${encodeURIComponent(examples.search_query)}&limit=20`;

  it("is 402 and uncharged, and a cheaper request still succeeds on the same balance", async () => {
    const { accountId, key } = await server.account(5);
    const refused = await readAnswer(await server.get(search, key));
    expect(refused).toMatchObject({ status: 402, errorCode: "insufficient_credits", charged: 0, problems: [] });
    expect(await server.balance(accountId)).toBe(5);
    expect(await server.usageTotal(accountId)).toBe(0);

    const lookup = await readAnswer(await server.get(`/v1/tweets/${examples.tweet_id}`, key));
    expect(lookup).toMatchObject({ status: 200, charged: 1, problems: [] });
    expect(await server.balance(accountId)).toBe(4);
  });

  it("says in details what it needed, what was left and the largest limit that fits; that request then succeeds", async () => {
    const { accountId, key } = await server.account(5);
    const response = await server.get(search, key);
    expect(response.status).toBe(402);
    const { error } = (await response.json()) as { error: { details: CreditRefusal } };
    expect(error.details).toEqual({
      reason: "balance",
      required: error.details.required,
      remaining: 5,
      fits: { limit: 4 },
    });
    expect(error.details.required).toBeGreaterThan(5);

    const fitting = search.replace("limit=20", "limit=4");
    const answer = await readAnswer(await server.get(fitting, key));
    expect(answer).toMatchObject({ status: 200, problems: [] });
    expect(answer.charged).toBeLessThanOrEqual(5);
    expect(await server.balance(accountId)).toBe(5 - answer.charged);
  });

  it("one credit short is refused; exactly enough is charged down to zero", async () => {
    const probe = await server.account(1000);
    const { charged: cost } = await readAnswer(await server.get(search, probe.key));
    expect(cost).toBeGreaterThan(1);

    const short = await server.account(cost - 1);
    expect((await readAnswer(await server.get(search, short.key))).status).toBe(402);
    expect(await server.balance(short.accountId)).toBe(cost - 1);

    const exact = await server.account(cost);
    expect(await readAnswer(await server.get(search, exact.key))).toMatchObject({ status: 200, charged: cost });
    expect(await server.balance(exact.accountId)).toBe(0);
    expect(await server.usageTotal(exact.accountId)).toBe(cost);
  });

  it("is 402 and uncharged on /2 too", async () => {
    const { accountId, key } = await server.account(3);
    const path = `/2/tweets/search/recent?query=${encodeURIComponent(examples.search_query)}&max_results=10`;
    const response = await server.get(path, key);
    const body = (await response.clone().json()) as { error: { details: unknown } };
    const refused = await readAnswer(response);
    expect(refused).toMatchObject({ status: 402, errorCode: "insufficient_credits", charged: 0, problems: [] });
    expect(await server.balance(accountId)).toBe(3);
    // In /2's own name for the page size.
    expect(body.error.details).toEqual({ reason: "balance", required: 11, remaining: 3, fits: { max_results: 2 } });
  });
});
