// Which buckets a serving process counts in: its share of the limit alone, the whole limit shared
// through Redis.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type RedisServer, startRedis } from "@social/ratelimit-redis/testing";
import { type OpenedRateLimiter, openRateLimiter } from "../src/index.ts";

const rateLimit = { ratePerSecond: 20, burst: 40 };
let redis: RedisServer;
const opened: OpenedRateLimiter[] = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const limiter of opened) limiter.close();
  await redis?.stop();
});

async function limitOf(settings: { processes: number; redisUrl?: string }): Promise<number> {
  const warnings: string[] = [];
  const limiter = await openRateLimiter({ rateLimit, ...settings, warn: (message) => warnings.push(message) });
  opened.push(limiter);
  expect(warnings).toEqual([]);
  return (await limiter.limiter.take("key_1")).limit;
}

describe("openRateLimiter", () => {
  test("without REDIS_URL, each of the processes on a machine holds its share of the limit", async () => {
    expect(await limitOf({ processes: 1 })).toBe(40);
    expect(await limitOf({ processes: 2 })).toBe(20);
  });

  test("with REDIS_URL, every process counts in the whole shared bucket", async () => {
    expect(await limitOf({ processes: 2, redisUrl: redis.url })).toBe(40);
    expect(await redis.client().send("HGET", ["social-api:rate:key_1", "tokens"])).toBe("39");
  });
});
