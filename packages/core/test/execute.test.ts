// The pipeline's promises, on an in-memory ledger and store: the order of checks, that nothing but a
// success is charged, and that a page's token only continues the same read.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import * as v from "valibot";
import { catalogue } from "../src/catalogue/index.ts";
import type { Endpoint } from "../src/endpoint.ts";
import { ApiError, notFound } from "../src/errors.ts";
import { LedgerError } from "../src/ledger-errors.ts";
import { executeRead, hashApiKey, type ReadServices } from "../src/pipeline/index.ts";
import type { IdempotencyRecords, Reservation } from "../src/ports/idempotency.ts";
import type { DebitResult, KeyCheck, Ledger, UsageRecord } from "../src/ports/ledger.ts";
import type { Store } from "../src/ports/store.ts";
import { LocalRateLimiter } from "../src/ratelimit.ts";
import { createTokenCodec } from "../src/tokens.ts";

const GOOD = `sk_live_${"g".repeat(32)}`;
const OLD = `sk_live_${"o".repeat(32)}`;
const UNKNOWN = `sk_live_${"u".repeat(32)}`;

const quotes = catalogue.find((e) => e.id === "tweet_quotes") as Endpoint;
const tweet = catalogue.find((e) => e.id === "tweet") as Endpoint;
const trends = catalogue.find((e) => e.id === "trends") as Endpoint;

class MemoryLedger implements Ledger {
  balance_ = 30;
  usage: UsageRecord[] = [];
  refunded: string[] = [];
  keys = new Map<string, KeyCheck>();
  lookups = 0;
  async checkKey(hash: string): Promise<KeyCheck> {
    this.lookups += 1;
    const check = this.keys.get(hash) ?? { status: "unknown" as const };
    return check.status === "active" ? { ...check, balance: this.balance_ } : check;
  }
  async balance() {
    return this.balance_;
  }
  async debit(_account: string, usage: UsageRecord): Promise<DebitResult> {
    if (usage.credits > this.balance_) return { ok: false, reason: "balance", remaining: this.balance_ };
    this.balance_ -= usage.credits;
    this.usage.push(usage);
    return { ok: true, remaining: this.balance_ };
  }
  async refund(_account: string, requestId: string) {
    const charge = this.usage.find((usage) => usage.requestId === requestId);
    if (!charge || this.refunded.includes(requestId)) return;
    this.refunded.push(requestId);
    this.balance_ += charge.credits;
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
  /** Trends take their own limit: as many come back whatever the pipeline allows. */
  async trends(woeid: string, limit: number) {
    return Array.from({ length: limit }, (_, i) => ({
      woeid,
      rank: i + 1,
      name: `#t${i}`,
      query: `t${i}`,
      tweet_count: 1,
    }));
  },
} as unknown as Store;

async function setup(rate = { ratePerSecond: 0, burst: 10 }, reads: string[] = []) {
  const ledger = new MemoryLedger();
  ledger.keys.set(await hashApiKey(GOOD), { status: "active", accountId: "a1", keyId: "k1", balance: 0 });
  ledger.keys.set(await hashApiKey(OLD), { status: "revoked", keyId: "k2" });
  const watched = new Proxy(store, {
    get(target, name) {
      reads.push(String(name));
      return Reflect.get(target, name);
    },
  });
  const services: ReadServices = {
    store: watched,
    ledger,
    tokens: await createTokenCodec("x".repeat(40)),
    limiter: new LocalRateLimiter(rate),
  };
  let n = 0;
  const read = (
    endpoint: Endpoint,
    params: Record<string, unknown>,
    apiKey: string | null = GOOD,
    signal?: AbortSignal,
  ) =>
    executeRead(services, {
      endpoint,
      params,
      apiKey: apiKey ?? undefined,
      requestId: `r${++n}`,
      ...(signal ? { signal } : {}),
    });
  return { ledger, read, services };
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
      [UNKNOWN, { id: "7" }, "invalid_api_key"],
      [OLD, { id: "7" }, "revoked_api_key"],
      [GOOD, { id: "x" }, "invalid_request"],
      [GOOD, { id: "8" }, "endpoint_not_found"],
      [GOOD, { id: "7", next_token: "forged.token" }, "invalid_request"],
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
    assert.deepEqual(outcome.error.credits, { reason: "balance", required: 21, remaining: 20 });
    assert.match(outcome.error.message, /costs 21 credits .* 20 remaining/);
    assert.equal(ledger.balance_, 20);
  });

  it("turns away a token that is not shaped like a key before looking it up", async () => {
    const { ledger, read } = await setup();
    for (const token of [
      "nope",
      `${GOOD}x`,
      GOOD.slice(0, -1),
      `sk_test_${"g".repeat(32)}`,
      `sk_live_${"-".repeat(32)}`,
      "k".repeat(15_000),
    ]) {
      const outcome = await read(quotes, { id: "7" }, token);
      assert.equal(outcome.ok ? "ok" : outcome.error.code, "invalid_api_key", token.slice(0, 50));
    }
    assert.equal(ledger.lookups, 0);
  });

  it("answers 402 without reading when the balance cannot cover the base cost", async () => {
    const reads: string[] = [];
    const { ledger, read } = await setup(undefined, reads);
    ledger.balance_ = 0;
    const outcome = await read(quotes, { id: "7" });
    assert.ok(!outcome.ok);
    assert.equal(outcome.error.code, "insufficient_credits");
    assert.deepEqual(outcome.error.credits, { reason: "balance", required: 1, remaining: 0 });
    assert.deepEqual(reads, []);
  });

  it("charges nothing for an answer whose client left during the read", async () => {
    const { ledger, read } = await setup();
    const gone = new AbortController();
    const leaving = {
      ...quotes,
      run: async (context: Parameters<typeof quotes.run>[0]) => {
        gone.abort();
        return quotes.run(context);
      },
    };
    const outcome = await read(leaving, { id: "7" }, GOOD, gone.signal);
    assert.ok(!outcome.ok);
    assert.equal(ledger.usage.length, 0);
    assert.equal(ledger.balance_, 30);
  });

  it("refunds a charge whose client left while it was being made", async () => {
    const { ledger, read } = await setup();
    const gone = new AbortController();
    const debit = ledger.debit.bind(ledger);
    ledger.debit = async (account, usage) => {
      const result = await debit(account, usage);
      gone.abort();
      return result;
    };
    const outcome = await read(quotes, { id: "7" }, GOOD, gone.signal);
    assert.ok(!outcome.ok);
    assert.equal(ledger.usage.length, 1);
    assert.deepEqual(ledger.refunded, [ledger.usage[0]?.requestId]);
    assert.equal(ledger.balance_, 30);
  });

  it("refunds a charge whose answer is lost after the pipeline returned it", async () => {
    const { ledger, read } = await setup();
    const lost = new AbortController();
    const outcome = await read(quotes, { id: "7" }, GOOD, lost.signal);
    assert.ok(outcome.ok);
    assert.equal(ledger.balance_, 30 - outcome.credits.charged);
    lost.abort();
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.deepEqual(ledger.refunded, [ledger.usage[0]?.requestId]);
    assert.equal(ledger.balance_, 30);
  });

  it("keeps the charge of a lost answer stored for an Idempotency-Key, which a retry replays uncharged", async () => {
    const { ledger, services } = await setup();
    const stored: string[] = [];
    const records: IdempotencyRecords = {
      reserve: async () => ({ kind: "reserved" }),
      async complete(_scope, requestId) {
        stored.push(requestId);
      },
      release: async () => {},
    };
    const lost = new AbortController();
    const outcome = await executeRead(
      { ...services, idempotency: records },
      {
        endpoint: quotes,
        params: { id: "7" },
        apiKey: GOOD,
        requestId: "r-kept",
        idempotency: { key: "retry-me", surface: "v1" },
        signal: lost.signal,
      },
    );
    assert.ok(outcome.ok && outcome.remember);
    await outcome.remember({ status: 200, headers: {}, body: "{}" });
    lost.abort();
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.deepEqual(stored, ["r-kept"]);
    assert.deepEqual(ledger.refunded, []);
    assert.equal(ledger.balance_, 30 - outcome.credits.charged);
  });

  it("answers 401 uncharged when the ledger finds the key revoked at the debit", async () => {
    const { ledger, read } = await setup();
    ledger.debit = async () => Promise.reject(new LedgerError("revoked_key", "key k is revoked"));
    const outcome = await read(quotes, { id: "7" });
    assert.ok(!outcome.ok);
    assert.equal(outcome.error.code, "revoked_api_key");
    assert.equal(outcome.error.status, 401);
    assert.equal(ledger.usage.length, 0);
    assert.equal(ledger.balance_, 30);
  });

  it("charges nothing when the read itself fails", async () => {
    const { ledger, read } = await setup();
    const failing = { ...quotes, run: async () => Promise.reject(new Error("disk gone")) };
    await assert.rejects(read(failing, { id: "7" }), /disk gone/);
    assert.equal(ledger.usage.length, 0);
    assert.equal(ledger.balance_, 30);
  });

  it("validates with a surface's own schema, enriches before the charge and returns what it read", async () => {
    const { ledger, services } = await setup();
    ledger.balance_ = 1000;
    const chargesWhenEnriched: number[] = [];
    const outcome = await executeRead(services, {
      endpoint: quotes,
      paramsSchema: v.pipe(
        v.strictObject({ quoted: v.string() }),
        v.transform(({ quoted }): Record<string, unknown> => ({ id: quoted })),
        quotes.params,
      ),
      params: { quoted: "7" },
      apiKey: GOOD,
      requestId: "r-enriched",
      enrich: async (_store, data) => {
        chargesWhenEnriched.push(ledger.usage.length);
        return Array.isArray(data) ? data.length : -1;
      },
    });
    assert.ok(outcome.ok);
    assert.equal(outcome.enriched, 20);
    assert.deepEqual(chargesWhenEnriched, [0]);
    assert.equal(outcome.credits.charged, 21);
  });

  it("charges nothing when the enrichment fails", async () => {
    const { ledger, services } = await setup();
    const outcome = await executeRead(services, {
      endpoint: quotes,
      params: { id: "7" },
      apiKey: GOOD,
      requestId: "r-enrich-failed",
      enrich: () => Promise.reject(notFound("The expansion is gone")),
    });
    assert.ok(!outcome.ok);
    assert.equal(outcome.error.code, "endpoint_not_found");
    assert.equal(ledger.usage.length, 0);
  });

  it("reports the balance on a failure after authentication, and none before it", async () => {
    const { read } = await setup();
    const missing = await read(quotes, { id: "8" });
    assert.ok(!missing.ok);
    assert.deepEqual(missing.credits, { charged: 0, remaining: 30 });
    const unknown = await read(quotes, { id: "7" }, UNKNOWN);
    assert.ok(!unknown.ok);
    assert.equal(unknown.credits, undefined);
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

  it("sends a charged answer whose Idempotency-Key record cannot be stored, and keeps the key reserved", async () => {
    const { ledger, services } = await setup();
    const reservations: string[] = [];
    const released: string[] = [];
    // The database went away between the debit and storing the answer.
    const records: IdempotencyRecords = {
      async reserve(_scope, _fingerprint, requestId): Promise<Reservation> {
        reservations.push(requestId);
        return { kind: "reserved" };
      },
      complete: () => Promise.reject(new ApiError("service_unavailable", "down")),
      async release(_scope, requestId) {
        released.push(requestId);
      },
    };
    const outcome = await executeRead(
      { ...services, idempotency: records },
      {
        endpoint: quotes,
        params: { id: "7" },
        apiKey: GOOD,
        requestId: "r-unstored",
        idempotency: { key: "retry-me", surface: "v1" },
      },
    );
    assert.ok(outcome.ok && outcome.remember);
    await outcome.remember({ status: 200, headers: {}, body: "{}" });
    assert.equal(outcome.credits.charged, 21);
    assert.deepEqual(
      ledger.usage.map((usage) => usage.requestId),
      ["r-unstored"],
    );
    // Not given up: a retry now would run afresh and charge again for what the client already holds.
    assert.deepEqual(reservations, ["r-unstored"]);
    assert.deepEqual(released, []);
  });

  it("answers dry_run=true with the quote, reading nothing and charging nothing", async () => {
    const reads: string[] = [];
    const { ledger, services } = await setup(undefined, reads);
    const outcome = await executeRead(services, {
      endpoint: quotes,
      params: { id: "7" },
      controls: { dry_run: true },
      apiKey: GOOD,
      requestId: "r-quote",
    });
    assert.ok(outcome.ok && outcome.dryRun);
    assert.deepEqual(outcome.credits, { charged: 0, remaining: 30, max: 21, rule: "1 credit + 1 per returned item" });
    assert.deepEqual(reads, []);
    assert.deepEqual(ledger.usage, []);
  });

  it("cuts a page larger than the output limit to what fits, charged for it, its token resuming after it", async () => {
    const reads: string[] = [];
    const { ledger, services } = await setup(undefined, reads);
    ledger.balance_ = 1000;
    // Each quote is {"id":"1000"}: 13 characters, and a comma between two.
    const outputLimit = { size: (data: unknown) => JSON.stringify(data).length, max: 100 };
    const seen: string[] = [];
    let token: string | undefined;
    let n = 0;
    do {
      const outcome = await executeRead(services, {
        endpoint: quotes,
        params: { id: "7", ...(token ? { next_token: token } : {}) },
        apiKey: GOOD,
        requestId: `r-cut-${++n}`,
        outputLimit,
      });
      assert.ok(outcome.ok);
      const page = (outcome.data as { id: string }[]).map((q) => q.id);
      assert.ok(JSON.stringify(outcome.data).length <= 100);
      assert.equal(outcome.credits.charged, 1 + page.length);
      // Every page but the last is cut; the last holds what is left.
      if (outcome.nextToken) assert.equal(outcome.shortened, true);
      seen.push(...page);
      token = outcome.nextToken;
    } while (token);
    assert.deepEqual(seen, ids);
    assert.ok(n > 3, "pages of 7 quotes, not 20");
    assert.equal(ledger.balance_, 1000 - n - ids.length);
  });

  it("reads again only while the answer gets smaller, however far over the output limit it stays", async () => {
    const reads: string[] = [];
    const { services } = await setup(undefined, reads);
    // An entry that returns its own limit whatever it is allowed, as none should.
    const stubborn: Endpoint = {
      ...trends,
      run: async ({ store, params }) => ({ data: await store.trends(String(params.woeid), Number(params.limit)) }),
    };
    const outcome = await executeRead(services, {
      endpoint: stubborn,
      params: { limit: 50 },
      apiKey: GOOD,
      requestId: "r-trends",
      outputLimit: { size: (data) => JSON.stringify(data).length, max: 10 },
    });
    assert.ok(outcome.ok);
    assert.equal((outcome.data as unknown[]).length, 50);
    assert.equal(outcome.shortened, undefined);
    assert.deepEqual(
      reads.filter((name) => name === "trends"),
      ["trends", "trends"],
    );
  });
});
