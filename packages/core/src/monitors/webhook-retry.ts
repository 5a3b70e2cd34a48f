// When a failed webhook delivery is tried again: exponential backoff from a base (MONITOR_RETRY_BASE_MS),
// doubling per failed attempt up to an hour, with jitter so that the monitors of one receiver that went
// down together do not all come back at the same instant; and, once the batch has failed for
// MONITOR_LIMITS.retryWindowMs, no more tries: the monitor is paused with the last error.
import type { WebhookAttempt } from "../ports/monitors.ts";
import { MONITOR_LIMITS, type MonitorNotice, type WebhookFailure } from "./model.ts";

export const DEFAULT_RETRY_BASE_MS = 10_000;
export const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;

/** The delay before attempt `failures + 1`: base × 2^(failures − 1), capped, then between half and all of it. */
export function retryDelay(failures: number, baseMs: number, random: () => number = Math.random): number {
  const full = Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** Math.max(0, Math.min(failures - 1, 30)));
  return Math.round(full / 2 + (full / 2) * random());
}

/**
 * The attempt to record for a delivery that failed at `now` with `error`, `failure` being the run of
 * failures before it (absent when the last attempt went through).
 */
export function failedAttempt(
  failure: WebhookFailure | undefined,
  error: string,
  now: number,
  baseMs: number,
  random: () => number = Math.random,
): Extract<WebhookAttempt, { outcome: "failed" }> {
  const since = failure?.since ?? now;
  const failures = (failure?.attempts ?? 0) + 1;
  const nextAttemptAt = now + retryDelay(failures, baseMs, random);
  if (now - since < MONITOR_LIMITS.retryWindowMs) return { outcome: "failed", error, nextAttemptAt };
  const hours = Math.round(MONITOR_LIMITS.retryWindowMs / 3_600_000);
  return {
    outcome: "failed",
    error,
    nextAttemptAt,
    pause: {
      reason: "webhook_failing",
      message: `Paused: the webhook kept failing for ${hours} hours (${failures} attempts); the last error: ${error}. Fix the receiver, then resume the monitor.`,
      since: now,
    },
  };
}

/** The hold of a monitor whose webhook has started failing at `since`: deliveries wait for the retries. */
export function webhookFailingHold(since: number): MonitorNotice {
  const until = new Date(since + MONITOR_LIMITS.retryWindowMs).toISOString().slice(0, 16).replace("T", " ");
  return {
    reason: "webhook_failing",
    message: `The webhook is failing: it is retried with growing delays until ${until} UTC, then the monitor is paused.`,
    since,
  };
}
