export { checkedRedisUrl, describeRedis } from "@social/ratelimit-redis";
export type { WorldMeta } from "@social/store-common";
// The SQLite defaults every process reads its configuration with, so the apps need no adapter package.
export { DEFAULT_DATABASE_URL, type Synchronous, synchronousFrom } from "@social/store-sqlite";
export * from "./backend.ts";
export * from "./describe.ts";
export * from "./open.ts";
export * from "./rate-limiter.ts";
export * from "./retention.ts";
export * from "./services.ts";
export * from "./world-source.ts";
