// Rate limits shared by two workers through a real redis-server (#14): a key limited to R per second
// with burst B, hammered through both workers for T seconds, gets at most B + R·T answers in total, the
// rest 429 with Retry-After. When Redis dies under the load the workers keep answering (never a 5xx),
// each counting its share of the limit, one warning each; when Redis is back the shared bucket counts
// again.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { type RedisServer, startRedis } from "@social/ratelimit-redis/testing";
import { openAccounts } from "./load.ts";
import { type ServerProcess, spawnServer, worldCopy } from "./server-process.ts";
import { type Hit, hammer, servedBy } from "./workers.ts";

const RATE = 10;
const BURST = 20;
/** Each worker's share while it counts alone. */
const SHARE = BURST / 2;

const world = worldCopy();
let redis: RedisServer;
let server: ServerProcess;

beforeAll(async () => {
  redis = await startRedis();
  server = await spawnServer(world.databasePath, {
    WEB_CONCURRENCY: "2",
    REDIS_URL: redis.url,
    RATE_LIMIT_RPS: String(RATE),
    RATE_LIMIT_BURST: String(BURST),
  });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await redis?.stop();
  world.remove();
});

function newKey(): string {
  const [account] = openAccounts(world.databasePath, [1_000_000_000]);
  return account?.key ?? "";
}

/** The workers (pids) that answered these hits. */
async function workersOf(hits: readonly Hit[]): Promise<Set<number | undefined>> {
  const served = await servedBy(
    server,
    hits.map((hit) => hit.requestId),
  );
  return new Set(hits.map((hit) => served.get(hit.requestId)));
}

const statuses = (hits: readonly Hit[]) => new Set(hits.map((hit) => hit.status));

/** From the first request sent to the last answer read. */
function spanSeconds(hits: readonly Hit[]): number {
  return (Math.max(...hits.map((hit) => hit.answeredAt)) - Math.min(...hits.map((hit) => hit.sentAt))) / 1000;
}

describe("a key's rate limit through two workers sharing Redis", () => {
  it("grants at most B + R·T answers in total, and refuses the rest with 429 and Retry-After", async () => {
    const hits = await hammer(server.url, newKey(), 3_000);
    const seconds = spanSeconds(hits);
    const granted = hits.filter((hit) => hit.status === 200);
    const refused = hits.filter((hit) => hit.status === 429);
    console.log(
      `${hits.length} requests in ${seconds.toFixed(2)} s: ${granted.length} granted, ${refused.length} refused`,
    );

    expect(statuses(hits)).toEqual(new Set([200, 429]));
    expect(granted.length).toBeLessThanOrEqual(BURST + RATE * seconds);
    // The whole burst was granted at once, so the limit is not split between the workers.
    expect(granted.length).toBeGreaterThanOrEqual(BURST);
    for (const hit of refused) expect(Number(hit.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(new Set(hits.map((hit) => hit.limit))).toEqual(new Set([BURST]));
    // Both workers granted and refused from the one bucket.
    expect((await workersOf(granted)).size).toBe(2);
    expect((await workersOf(refused)).size).toBe(2);
  }, 30_000);

  it("keeps answering when Redis dies mid-load, each worker counting its share, and shares again once it is back", async () => {
    // One load throughout; Redis is killed a second in, and restarted 2.5 s later.
    const marks = { kill: 0, restart: 0 };
    const outage = (async () => {
      await Bun.sleep(1_000);
      marks.kill = performance.now();
      await redis.kill();
      await Bun.sleep(2_500);
      marks.restart = performance.now();
      await redis.restart();
    })();
    const hits = await hammer(server.url, newKey(), 7_000);
    await outage;
    // Never a 5xx, and never unlimited: before, during and after.
    expect(statuses(hits)).toEqual(new Set([200, 429]));

    const before = hits.filter((hit) => hit.answeredAt < marks.kill);
    expect(before.length).toBeGreaterThan(0);
    expect(new Set(before.map((hit) => hit.limit))).toEqual(new Set([BURST]));

    // Each worker falls back to its own share of the limit.
    const during = hits.filter((hit) => hit.sentAt > marks.kill && hit.answeredAt < marks.restart);
    const local = during.filter((hit) => hit.limit === SHARE);
    expect((await workersOf(local)).size).toBe(2);
    // Each share starts full and refills at half the rate: together, still at most B + R·T.
    expect(during.filter((hit) => hit.status === 200).length).toBeLessThanOrEqual(BURST + RATE * spanSeconds(during));

    // Each worker tries Redis again a second after its last failure, and its client reconnects.
    const after = hits.filter((hit) => hit.sentAt > marks.restart + 2_500);
    expect(after.length).toBeGreaterThan(0);
    expect(new Set(after.map((hit) => hit.limit))).toEqual(new Set([BURST]));
    expect((await workersOf(after)).size).toBe(2);
    // The restarted Redis started empty: the buckets in it now were written since.
    const client = redis.client();
    expect(((await client.send("KEYS", ["social-api:rate:*"])) as string[]).length).toBeGreaterThan(0);
    client.close();

    // One warning per worker for the outage, and one notice each that it is over.
    const logs = await server.logs();
    expect(logs.split("\n").filter((line) => line.includes("cannot count rate limits")).length).toBe(2);
    expect(logs.split("\n").filter((line) => line.includes("is back: rate limits are shared again")).length).toBe(2);
  }, 60_000);
});
