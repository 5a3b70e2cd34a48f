import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RateLimiter } from "../src/ratelimit.ts";

describe("token bucket", () => {
  it("allows a burst, refuses the next request and refills at the configured rate", () => {
    let now = 1_000_000;
    const limiter = new RateLimiter({ ratePerSecond: 2, burst: 3 }, () => now);
    assert.deepEqual(
      [1, 2, 3].map(() => limiter.take("k").allowed),
      [true, true, true],
    );
    const refused = limiter.take("k");
    assert.equal(refused.allowed, false);
    assert.equal(refused.remaining, 0);
    assert.equal(refused.retryAfter, 1);
    now += 500;
    assert.equal(limiter.take("k").allowed, true);
    assert.equal(limiter.take("k").allowed, false);
  });

  it("keeps keys apart", () => {
    const limiter = new RateLimiter({ ratePerSecond: 1, burst: 1 }, () => 0);
    assert.equal(limiter.take("a").allowed, true);
    assert.equal(limiter.take("a").allowed, false);
    assert.equal(limiter.take("b").allowed, true);
  });

  it("reports the limit, the remaining requests and when the bucket is full again", () => {
    const limiter = new RateLimiter({ ratePerSecond: 10, burst: 20 }, () => 5_000);
    const state = limiter.take("k");
    assert.deepEqual([state.limit, state.remaining, state.reset], [20, 19, 6]);
  });

  it("is off with a rate of 0", () => {
    const limiter = new RateLimiter({ ratePerSecond: 0, burst: 1 }, () => 0);
    for (let i = 0; i < 100; i++) assert.equal(limiter.take("k").allowed, true);
  });
});
