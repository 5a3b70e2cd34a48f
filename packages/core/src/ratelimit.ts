// Per-key token buckets. Rate and burst come from configuration; a rate of 0 turns limiting off (for
// load tests). Buckets live in process memory: one API process per database is the deployment today.
import { ApiError } from "./errors.ts";

export interface RateLimitConfig {
  /** Tokens added per second; 0 disables limiting. */
  ratePerSecond: number;
  /** Bucket capacity: the most requests allowed at once after a quiet period. */
  burst: number;
}

export interface RateState {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds at which the bucket is full again. */
  reset: number;
  /** Seconds to wait before a retry can succeed (only when refused). */
  retryAfter: number;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

const MAX_IDLE_BUCKETS = 100_000;

export class RateLimiter {
  readonly #config: RateLimitConfig;
  readonly #now: () => number;
  readonly #buckets = new Map<string, Bucket>();

  constructor(config: RateLimitConfig, now: () => number = Date.now) {
    this.#config = config;
    this.#now = now;
  }

  get enabled(): boolean {
    return this.#config.ratePerSecond > 0;
  }

  take(key: string): RateState {
    const { ratePerSecond, burst } = this.#config;
    const nowMs = this.#now();
    if (!this.enabled)
      return { allowed: true, limit: burst, remaining: burst, reset: Math.ceil(nowMs / 1000), retryAfter: 0 };

    const bucket = this.#refill(key, nowMs);
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    const secondsToFull = (burst - bucket.tokens) / ratePerSecond;
    return {
      allowed,
      limit: burst,
      remaining: Math.floor(bucket.tokens),
      reset: Math.ceil(nowMs / 1000 + secondsToFull),
      retryAfter: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / ratePerSecond)),
    };
  }

  #refill(key: string, nowMs: number): Bucket {
    const { ratePerSecond, burst } = this.#config;
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      // Full buckets carry no information, so they are dropped when the map grows large.
      if (this.#buckets.size >= MAX_IDLE_BUCKETS) this.#evictFull(nowMs);
      bucket = { tokens: burst, updatedMs: nowMs };
      this.#buckets.set(key, bucket);
      return bucket;
    }
    const elapsed = Math.max(0, nowMs - bucket.updatedMs) / 1000;
    bucket.tokens = Math.min(burst, bucket.tokens + elapsed * ratePerSecond);
    bucket.updatedMs = nowMs;
    return bucket;
  }

  #evictFull(nowMs: number): void {
    const { ratePerSecond, burst } = this.#config;
    for (const [key, bucket] of this.#buckets) {
      if (bucket.tokens + ((nowMs - bucket.updatedMs) / 1000) * ratePerSecond >= burst) this.#buckets.delete(key);
    }
  }
}

/** The x-rate-limit-* headers of an answer to a counted request; none when nothing was counted. */
export function rateHeaders(rate: RateState | undefined): Record<string, string> {
  if (!rate) return {};
  return {
    "x-rate-limit-limit": String(rate.limit),
    "x-rate-limit-remaining": String(rate.remaining),
    "x-rate-limit-reset": String(rate.reset),
  };
}

export function rateLimitError(state: RateState): ApiError {
  return new ApiError("rate_limited", `Rate limit exceeded: retry after ${state.retryAfter} s`, {
    retryAfter: state.retryAfter,
  });
}
