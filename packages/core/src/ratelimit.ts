// Per-key token buckets. Rate and burst come from configuration; a rate of 0 turns limiting off (for
// load tests). The RateLimiter port has two adapters: LocalRateLimiter keeps the buckets in this
// process's memory; with REDIS_URL set, every process shares buckets kept in Redis (the
// @social/ratelimit-redis package), falling back to the local ones while Redis cannot be reached.
import { ApiError } from "./errors.ts";
import type { RateLimiter, RateState } from "./ports/rate-limiter.ts";

export interface RateLimitConfig {
  /** Tokens added per second; 0 disables limiting. */
  ratePerSecond: number;
  /** Bucket capacity: the most requests allowed at once after a quiet period. */
  burst: number;
}

/**
 * The answer for a bucket left holding `tokens` at `nowMs` after a take that was `allowed` (and then
 * took its token) or not: one computation for every adapter, so their headers agree.
 */
export function rateState(config: RateLimitConfig, allowed: boolean, tokens: number, nowMs: number): RateState {
  const { ratePerSecond, burst } = config;
  if (ratePerSecond <= 0)
    return { allowed: true, limit: burst, remaining: burst, reset: Math.ceil(nowMs / 1000), retryAfter: 0 };
  return {
    allowed,
    limit: burst,
    remaining: Math.floor(tokens),
    reset: Math.ceil(nowMs / 1000 + (burst - tokens) / ratePerSecond),
    retryAfter: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / ratePerSecond)),
  };
}

/**
 * What each of `processes` processes may grant when each counts alone (no shared store, or while it is
 * out): the limit divided between them, so that together they still grant no more than the limit.
 */
export function localShare(config: RateLimitConfig, processes: number): RateLimitConfig {
  if (processes <= 1) return config;
  return { ratePerSecond: config.ratePerSecond / processes, burst: Math.max(1, Math.floor(config.burst / processes)) };
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

const MAX_IDLE_BUCKETS = 100_000;

/** Buckets in this process's memory. */
export class LocalRateLimiter implements RateLimiter {
  readonly #config: RateLimitConfig;
  readonly #now: () => number;
  readonly #buckets = new Map<string, Bucket>();

  constructor(config: RateLimitConfig, now: () => number = Date.now) {
    this.#config = config;
    this.#now = now;
  }

  async take(key: string): Promise<RateState> {
    const nowMs = this.#now();
    if (this.#config.ratePerSecond <= 0) return rateState(this.#config, true, this.#config.burst, nowMs);
    const bucket = this.#refill(key, nowMs);
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    return rateState(this.#config, allowed, bucket.tokens, nowMs);
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
