// The rate limiter every serving process uses: buckets shared through Redis when REDIS_URL is set,
// otherwise this process's own. A process that counts alone (no Redis, or while it is out) holds its
// share of the limit, so N workers on one machine together still grant no more than the limit.
import { LocalRateLimiter, localShare, type RateLimitConfig, type RateLimiter } from "@social/core";
import { RedisRateLimiter } from "@social/ratelimit-redis";

export interface RateLimitSettings {
  /** Each key's limit, in total. */
  rateLimit: RateLimitConfig;
  redisUrl?: string | undefined;
  /** How many processes serve the same keys on this machine (WEB_CONCURRENCY). */
  processes: number;
  /** Where a Redis outage is reported. */
  warn: (message: string) => void;
}

export interface OpenedRateLimiter {
  limiter: RateLimiter;
  close(): void;
}

export async function openRateLimiter(settings: RateLimitSettings): Promise<OpenedRateLimiter> {
  const local = new LocalRateLimiter(localShare(settings.rateLimit, settings.processes));
  if (!settings.redisUrl) return { limiter: local, close: () => {} };
  const shared = await RedisRateLimiter.open({
    url: settings.redisUrl,
    config: settings.rateLimit,
    fallback: local,
    warn: settings.warn,
  });
  return { limiter: shared, close: () => shared.close() };
}
