// A failing webhook is tried again later and later, then its monitor is paused.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MONITOR_LIMITS } from "../../src/monitors/model.ts";
import { failedAttempt, MAX_RETRY_DELAY_MS, retryDelay } from "../../src/monitors/webhook-retry.ts";

const BASE = 10_000;

describe("webhook retries", () => {
  it("double from the base per failure, up to an hour, jittered between half and all of it", () => {
    assert.deepEqual(
      [1, 2, 3, 4].map((failures) => retryDelay(failures, BASE, () => 1)),
      [10_000, 20_000, 40_000, 80_000],
    );
    assert.equal(
      retryDelay(3, BASE, () => 0),
      20_000,
    );
    assert.equal(
      retryDelay(50, BASE, () => 1),
      MAX_RETRY_DELAY_MS,
    );
    assert.equal(
      retryDelay(5000, BASE, () => 1),
      MAX_RETRY_DELAY_MS,
    );
  });

  it("start a failing run at the first failure and count its attempts", () => {
    const now = 1_000_000;
    const first = failedAttempt(undefined, "HTTP 500", now, BASE, () => 1);
    assert.deepEqual(first, { outcome: "failed", error: "HTTP 500", nextAttemptAt: now + BASE });
    const failure = { since: now, attempts: 3, lastError: "HTTP 500", nextAttemptAt: now };
    const later = failedAttempt(failure, "timeout", now + 5000, BASE, () => 1);
    assert.equal(later.nextAttemptAt, now + 5000 + 8 * BASE);
    assert.equal(later.pause, undefined);
  });

  it("pause once the run has failed for the retry window, naming the last error", () => {
    const since = 1_000_000;
    const failure = { since, attempts: 30, lastError: "HTTP 500", nextAttemptAt: since };
    const inside = failedAttempt(failure, "HTTP 502", since + MONITOR_LIMITS.retryWindowMs - 1, BASE);
    assert.equal(inside.pause, undefined);
    const over = failedAttempt(failure, "HTTP 502", since + MONITOR_LIMITS.retryWindowMs, BASE);
    assert.equal(over.pause?.reason, "webhook_failing");
    assert.match(over.pause?.message ?? "", /HTTP 502/);
  });
});
