// The shared buckets against a real redis-server: one limit for every process that shares it, taken
// atomically, and an outage (down, hung, or restarted empty) answered by the local share instead of an
// error, with one warning.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { LocalRateLimiter, type RateLimitConfig } from "@social/core";
import { describeRedis, RedisRateLimiter } from "../src/index.ts";
import { type RedisServer, startRedis } from "../testing/redis-server.ts";

/** The fallback's burst differs from every shared one, so a state tells which bucket answered it. */
const LOCAL = { ratePerSecond: 1, burst: 7 };

let redis: RedisServer;
const opened: RedisRateLimiter[] = [];
let nextPrefix = 0;

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const limiter of opened) limiter.close();
  await redis?.stop();
});

/** A limiter as one process would hold it; `prefix` puts several of them on the same buckets. */
async function open(
  config: RateLimitConfig,
  prefix: string,
  warnings: string[] = [],
  url = redis.url,
  now: () => number = Date.now,
) {
  const limiter = await RedisRateLimiter.open({
    url,
    config,
    fallback: new LocalRateLimiter(LOCAL),
    warn: (message) => warnings.push(message),
    prefix,
    retryAfterMs: 200,
    now,
  });
  opened.push(limiter);
  return limiter;
}

const freshPrefix = () => `test-${nextPrefix++}:`;

describe("shared token buckets in Redis", () => {
  it("give a key its burst once in total across processes, however many takes race for it", async () => {
    const prefix = freshPrefix();
    const config = { ratePerSecond: 0.001, burst: 50 };
    const processes = [await open(config, prefix), await open(config, prefix)];
    const states = await Promise.all(
      Array.from({ length: 200 }, (_, index) => (processes[index % 2] as RedisRateLimiter).take("key_a")),
    );
    expect(states.filter((state) => state.allowed).length).toBe(50);
    expect(new Set(states.map((state) => state.limit))).toEqual(new Set([50]));
    // Every token was taken exactly once: the remaining counts of the granted takes are 49 down to 0.
    const remaining = states.filter((state) => state.allowed).map((state) => state.remaining);
    expect(remaining.sort((a, b) => b - a)).toEqual(Array.from({ length: 50 }, (_, index) => 49 - index));
  });

  it("keep keys apart, and report the limit, the remaining requests and when to retry", async () => {
    const limiter = await open({ ratePerSecond: 0.5, burst: 2 }, freshPrefix());
    const first = await limiter.take("key_b");
    expect([first.allowed, first.limit, first.remaining, first.retryAfter]).toEqual([true, 2, 1, 0]);
    await limiter.take("key_b");
    const refused = await limiter.take("key_b");
    expect([refused.allowed, refused.remaining, refused.retryAfter]).toEqual([false, 0, 2]);
    // Full again in (2 - tokens) / 0.5 s, within a second of rounding.
    const nowSeconds = Date.now() / 1000;
    expect(refused.reset).toBeGreaterThan(nowSeconds + 2);
    expect(refused.reset).toBeLessThanOrEqual(Math.ceil(nowSeconds + 5));
    expect((await limiter.take("key_c")).allowed).toBe(true);
  });

  it("refill at the configured rate, by the Redis server's clock", async () => {
    const limiter = await open({ ratePerSecond: 10, burst: 5 }, freshPrefix());
    for (let i = 0; i < 5; i++) await limiter.take("key_d");
    expect((await limiter.take("key_d")).allowed).toBe(false);
    await Bun.sleep(520);
    const refilled = [];
    for (let i = 0; i < 8; i++) refilled.push((await limiter.take("key_d")).allowed);
    // About 5 tokens came back in half a second at 10 per second (a little more on a slow machine).
    const granted = refilled.filter(Boolean).length;
    expect(granted).toBeGreaterThanOrEqual(5);
    expect(granted).toBeLessThanOrEqual(7);
  });

  it("leave Redis alone when limiting is off", async () => {
    const prefix = freshPrefix();
    const limiter = await open({ ratePerSecond: 0, burst: 3 }, prefix);
    for (let i = 0; i < 10; i++) expect((await limiter.take("key_e")).allowed).toBe(true);
    expect(await redis.client().send("EXISTS", [`${prefix}key_e`])).toBe(0);
  });
});

describe("a Redis outage", () => {
  it("is answered from the local share, warned about once, and the shared buckets return with Redis (script reloaded)", async () => {
    const warnings: string[] = [];
    const config = { ratePerSecond: 0.001, burst: 20 };
    const limiter = await open(config, freshPrefix(), warnings);
    expect((await limiter.take("key_f")).limit).toBe(20);

    await redis.kill();
    const during = [];
    for (let i = 0; i < 30; i++) during.push(await limiter.take("key_f"));
    // The local share counts: its burst of 7 granted, then refused, never an error.
    expect(new Set(during.map((state) => state.limit))).toEqual(new Set([LOCAL.burst]));
    expect(during.filter((state) => state.allowed).length).toBe(LOCAL.burst);
    expect(warnings.length).toBe(1);
    expect(warnings[0]).toContain(`Redis at ${describeRedis(redis.url)} cannot count rate limits`);

    await redis.restart();
    // Retried after retryAfterMs (200 ms here), once the client has reconnected.
    const deadline = Date.now() + 10_000;
    let state = await limiter.take("key_f");
    while (state.limit !== 20 && Date.now() < deadline) {
      await Bun.sleep(100);
      state = await limiter.take("key_f");
    }
    expect(state.limit).toBe(20);
    // The restarted Redis is empty: a new full bucket, counted by the script loaded again.
    expect([state.allowed, state.remaining]).toEqual([true, 19]);
    expect(warnings.length).toBe(2);
    expect(warnings[1]).toContain("is back: rate limits are shared again");
  });

  it("that hangs (the server stopped answering) costs a take at most its timeout", async () => {
    const warnings: string[] = [];
    const limiter = await open({ ratePerSecond: 0.001, burst: 20 }, freshPrefix(), warnings);
    await limiter.take("key_g");
    redis.freeze();
    try {
      const started = performance.now();
      const state = await limiter.take("key_g");
      const waited = performance.now() - started;
      expect(state.limit).toBe(LOCAL.burst);
      expect(waited).toBeLessThan(2_000);
      // Within the retry window the next takes do not wait at all.
      const next = performance.now();
      await limiter.take("key_g");
      expect(performance.now() - next).toBeLessThan(50);
      expect(warnings.length).toBe(1);
    } finally {
      redis.thaw();
    }
  });

  it("that lasts is warned about again each minute, and no more often", async () => {
    const warnings: string[] = [];
    let clock = Date.now();
    const nobody = "redis://127.0.0.1:9";
    const limiter = await open({ ratePerSecond: 0.001, burst: 20 }, freshPrefix(), warnings, nobody, () => clock);
    const minutes = (n: number) => n * 60_000;
    const start = clock;
    // Each take is past the previous one's retry window (200 ms), so each tries Redis and fails.
    for (const at of [1_000, 30_000, minutes(1) - 1, minutes(1) + 1_000, minutes(1.5), minutes(2) + 2_000]) {
      clock = start + at;
      expect((await limiter.take("key_i")).limit).toBe(LOCAL.burst);
    }
    // At start, past the first minute, past the second: three.
    expect(warnings.length).toBe(3);
    for (const warning of warnings) expect(warning).toContain("cannot count rate limits");
  });

  it("at start is a warning, not a failure: the local share counts until Redis answers", async () => {
    const warnings: string[] = [];
    const nobody = "redis://127.0.0.1:9";
    const limiter = await open({ ratePerSecond: 0.001, burst: 20 }, freshPrefix(), warnings, nobody);
    expect((await limiter.take("key_h")).limit).toBe(LOCAL.burst);
    expect(warnings.length).toBe(1);
  });
});

describe("A Redis that refuses REDIS_URL's credentials", () => {
  let guarded: RedisServer;
  beforeAll(async () => {
    guarded = await startRedis();
    const admin = guarded.client();
    await admin.send("CONFIG", ["SET", "requirepass", "right"]);
    admin.close();
  });
  afterAll(() => guarded?.stop());

  const withPassword = (credentials: string) => guarded.url.replace("redis://", `redis://${credentials}@`);

  it("stops the start with a sentence naming REDIS_URL and Redis's own words, never the password", async () => {
    const cases = [
      { url: withPassword(":wrong"), says: "WRONGPASS" },
      { url: withPassword("bob:wrong"), says: "WRONGPASS" },
      { url: guarded.url, says: "NOAUTH" },
    ];
    for (const { url, says } of cases) {
      const warnings: string[] = [];
      const opening = open({ ratePerSecond: 1, burst: 5 }, freshPrefix(), warnings, url);
      await expect(opening).rejects.toThrow(
        `Redis at ${describeRedis(url)} refuses the user name and password in REDIS_URL (${says}`,
      );
      await opening.catch((error: Error) => expect(error.message).not.toContain("wrong"));
      expect(warnings).toEqual([]);
    }
  });

  it("shares the buckets once the password is right", async () => {
    const limiter = await open({ ratePerSecond: 0.001, burst: 3 }, freshPrefix(), [], withPassword(":right"));
    expect((await limiter.take("key_i")).limit).toBe(3);
  });
});

describe("REDIS_URL", () => {
  it("is described without its password", () => {
    expect(describeRedis("redis://user:secret@cache.example:6380/2")).toBe("redis://cache.example:6380");
  });
});
