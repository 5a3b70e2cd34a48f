export { RedisRateLimiter, type RedisRateLimiterOptions } from "./redis-rate-limiter.ts";
export { checkedRedisUrl, describeRedis } from "./redis-url.ts";
