import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LocalRateLimiter, localShare, rateState } from "../src/ratelimit.ts";

const allowedOf = async (limiter: LocalRateLimiter, key: string) => (await limiter.take(key)).allowed;

describe("token bucket", () => {
  it("allows a burst, refuses the next request and refills at the configured rate", async () => {
    let now = 1_000_000;
    const limiter = new LocalRateLimiter({ ratePerSecond: 2, burst: 3 }, () => now);
    assert.deepEqual(
      [await allowedOf(limiter, "k"), await allowedOf(limiter, "k"), await allowedOf(limiter, "k")],
      [true, true, true],
    );
    const refused = await limiter.take("k");
    assert.equal(refused.allowed, false);
    assert.equal(refused.remaining, 0);
    assert.equal(refused.retryAfter, 1);
    now += 500;
    assert.equal(await allowedOf(limiter, "k"), true);
    assert.equal(await allowedOf(limiter, "k"), false);
  });

  it("keeps keys apart", async () => {
    const limiter = new LocalRateLimiter({ ratePerSecond: 1, burst: 1 }, () => 0);
    assert.equal(await allowedOf(limiter, "a"), true);
    assert.equal(await allowedOf(limiter, "a"), false);
    assert.equal(await allowedOf(limiter, "b"), true);
  });

  it("reports the limit, the remaining requests and when the bucket is full again", async () => {
    const limiter = new LocalRateLimiter({ ratePerSecond: 10, burst: 20 }, () => 5_000);
    const state = await limiter.take("k");
    assert.deepEqual([state.limit, state.remaining, state.reset], [20, 19, 6]);
  });

  it("is off with a rate of 0", async () => {
    const limiter = new LocalRateLimiter({ ratePerSecond: 0, burst: 1 }, () => 0);
    for (let i = 0; i < 100; i++) assert.equal(await allowedOf(limiter, "k"), true);
  });

  it("says how long until a refused request can succeed, from the missing fraction of a token", () => {
    const state = rateState({ ratePerSecond: 0.5, burst: 4 }, false, 0.25, 10_000);
    assert.deepEqual(state, { allowed: false, limit: 4, remaining: 0, reset: 18, retryAfter: 2 });
  });
});

describe("the local share of a limit", () => {
  it("divides rate and burst between the processes that count alone, so together they grant no more", () => {
    assert.deepEqual(localShare({ ratePerSecond: 20, burst: 40 }, 2), { ratePerSecond: 10, burst: 20 });
    assert.deepEqual(localShare({ ratePerSecond: 20, burst: 40 }, 1), { ratePerSecond: 20, burst: 40 });
  });

  it("never leaves a process a bucket that holds no whole request", () => {
    assert.deepEqual(localShare({ ratePerSecond: 3, burst: 3 }, 4), { ratePerSecond: 0.75, burst: 1 });
  });
});
