// The pipeline's promises, on an in-memory ledger and store: the order of checks, that nothing but a
// success is charged, and that a page's token only continues the same read.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { catalogue } from "../src/catalogue.ts";
import type { Endpoint } from "../src/endpoint.ts";
import { executeRead, hashApiKey, type Services } from "../src/execute.ts";
import type { DebitResult, KeyCheck, Ledger, Store, UsageRecord } from "../src/ports.ts";
import { RateLimiter } from "../src/ratelimit.ts";
import { createTokenCodec } from "../src/tokens.ts";

const quotes = catalogue.find((e) => e.id === "tweet_quotes") as Endpoint;
const tweet = catalogue.find((e) => e.id === "tweet") as Endpoint;

class MemoryLedger implements Ledger {
  balance_ = 30;
  usage: UsageRecord[] = [];
  keys = new Map<string, KeyCheck>();
  async checkKey(hash: string) {
    return this.keys.get(hash) ?? { status: "unknown" as const };
  }
  async balance() {
    return this.balance_;
  }
  async debit(_account: string, usage: UsageRecord): Promise<DebitResult> {
    if (usage.credits > this.balance_) return { ok: false, remaining: this.balance_ };
    this.balance_ -= usage.credits;
    this.usage.push(usage);
    return { ok: true, remaining: this.balance_ };
  }
}

const ids = Array.from({ length: 45 }, (_, i) => String(1000 - i));
const store = {
  async quotes(id: string, page: { size: number; after?: readonly (string | number)[] }) {
    if (id !== "7") return undefined;
    const start = page.after ? ids.indexOf(String(page.after[0])) + 1 : 0;
    const items = ids.slice(start, start + page.size).map((qid) => ({ id: qid }));
    const last = items.at(-1);
    return start + page.size < ids.length && last ? { items, next: [last.id] } : { items };
  },
  async tweetsByIds() {
    return [];
  },
} as unknown as Store;

async function setup(rate = { ratePerSecond: 0, burst: 10 }) {
  const ledger = new MemoryLedger();
  ledger.keys.set(await hashApiKey("good"), { status: "active", accountId: "a1", keyId: "k1" });
  ledger.keys.set(await hashApiKey("old"), { status: "revoked", keyId: "k2" });
  const services: Services = {
    store,
    ledger,
    tokens: await createTokenCodec("x".repeat(40)),
    limiter: new RateLimiter(rate),
  };
  let n = 0;
  const read = (endpoint: Endpoint, params: Record<string, unknown>, apiKey: string | null = "good") =>
    executeRead(services, { endpoint, params, apiKey: apiKey ?? undefined, requestId: `r${++n}` });
  return { ledger, read };
}

describe("executeRead", () => {
  it("pages through every item once, charging 1 + 1 per item per page", async () => {
    const { ledger, read } = await setup();
    ledger.balance_ = 1000;
    const seen: string[] = [];
    let token: string | undefined;
    const charges: number[] = [];
    do {
      const outcome = await read(quotes, { id: "7", ...(token ? { next_token: token } : {}) });
      assert.ok(outcome.ok);
      seen.push(...(outcome.data as { id: string }[]).map((q) => q.id));
      charges.push(outcome.credits.charged);
      token = outcome.nextToken;
    } while (token);
    assert.deepEqual(seen, ids);
    assert.deepEqual(charges, [21, 21, 6]);
    assert.equal(ledger.balance_, 1000 - 48);
  });

  it("answers 401 before anything else and charges no failure", async () => {
    const { ledger, read } = await setup();
    const cases: [string | null, Record<string, unknown>, string][] = [
      [null, { id: "x" }, "invalid_api_key"],
      ["nope", { id: "7" }, "invalid_api_key"],
      ["old", { id: "7" }, "revoked_api_key"],
      ["good", { id: "x" }, "invalid_request"],
      ["good", { id: "8" }, "endpoint_not_found"],
      ["good", { id: "7", next_token: "forged.token" }, "invalid_request"],
    ];
    for (const [key, params, code] of cases) {
      const outcome = await read(quotes, params, key);
      assert.equal(outcome.ok ? "ok" : outcome.error.code, code, JSON.stringify([key, params]));
    }
    assert.equal(ledger.usage.length, 0);
    assert.equal(ledger.balance_, 30);
  });

  it("refuses a token on another endpoint or another query", async () => {
    const { read } = await setup();
    const first = await read(quotes, { id: "7" });
    assert.ok(first.ok && first.nextToken);
    const elsewhere = await read(tweet, { id: "7", next_token: first.nextToken });
    assert.equal(elsewhere.ok ? "ok" : elsewhere.error.code, "invalid_request");
  });

  it("refuses with 402 and charges nothing when the cost exceeds the balance", async () => {
    const { ledger, read } = await setup();
    ledger.balance_ = 20;
    const outcome = await read(quotes, { id: "7" });
    assert.ok(!outcome.ok);
    assert.equal(outcome.error.code, "insufficient_credits");
    assert.deepEqual(outcome.error.credits, { required: 21, remaining: 20 });
    assert.match(outcome.error.message, /costs 21 credits .* 20 remaining/);
    assert.equal(ledger.balance_, 20);
  });

  it("charges nothing when the read itself fails", async () => {
    const { ledger, read } = await setup();
    const failing = { ...quotes, run: async () => Promise.reject(new Error("disk gone")) };
    await assert.rejects(read(failing, { id: "7" }), /disk gone/);
    assert.equal(ledger.usage.length, 0);
    assert.equal(ledger.balance_, 30);
  });

  it("rate-limits per key with 429 and Retry-After, uncharged", async () => {
    const { ledger, read } = await setup({ ratePerSecond: 1, burst: 2 });
    ledger.balance_ = 1000;
    const codes = [];
    for (let i = 0; i < 3; i++) {
      const outcome = await read(quotes, { id: "7" });
      codes.push(outcome.ok ? "ok" : outcome.error.code);
      if (!outcome.ok) assert.equal(outcome.error.retryAfter, 1);
    }
    assert.deepEqual(codes, ["ok", "ok", "rate_limited"]);
    assert.equal(ledger.usage.length, 2);
  });
});
