export { RedisRateLimiter, type RedisRateLimiterOptions } from "./redis-rate-limiter.ts";
export { describeRedis } from "./redis-url.ts";
