// The rate limiter's port: one take per request from its key's bucket. Its adapters are core's
// LocalRateLimiter (../ratelimit.ts) and @social/ratelimit-redis, not the database adapters.

export interface RateState {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds at which the bucket is full again. */
  reset: number;
  /** Seconds to wait before a retry can succeed (only when refused). */
  retryAfter: number;
}

/** Takes one token from a key's bucket, or says when the next one comes. */
export interface RateLimiter {
  take(key: string): Promise<RateState>;
}
