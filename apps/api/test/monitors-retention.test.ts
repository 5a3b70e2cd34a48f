// The retention of monitor matches over the real server on both adapters: a server purges the matches
// older than MONITOR_MATCH_DAYS when it starts, and a poll then serves the rest, charging nothing for
// the ones gone.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { ADAPTERS, startTestServer, type TestServer } from "./harness.ts";
import { createMonitor, type MatchesData, send, worldTweetIds } from "./monitors.ts";

const DAY_MS = 86_400_000;

describe.each(ADAPTERS)("on %s", (adapter) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ adapter });
  });
  afterAll(() => server.close());

  it("a server purges matches older than MONITOR_MATCH_DAYS at start; a poll serves the rest", async () => {
    const { accountId, key } = await server.account(100);
    const monitor = await createMonitor(server, key);
    const [oldOne = "", oldTwo = "", recent = ""] = await worldTweetIds(server, 3);
    const matches = (tweetIds: string[]) => tweetIds.map((tweetId) => ({ monitorId: monitor.id, tweetId }));
    await server.backend.monitors.recordMatches([], matches([oldOne, oldTwo]), Date.now() - 3 * DAY_MS);
    await server.backend.monitors.recordMatches([], matches([recent]), Date.now());

    // Another worker starting on the same database purges at start.
    const worker = await startTestServer({ sharing: server, monitorMatchDays: 2 });
    try {
      const left = () => server.backend.monitors.matches(monitor.id, 0, 10);
      for (let waited = 0; waited < 2000 && (await left()).length > 1; waited += 50) await Bun.sleep(50);
      expect((await left()).map((match) => match.seq)).toEqual([3]);
    } finally {
      await worker.stop();
    }

    const answer = await send<MatchesData>(server, "GET", `/v1/monitors/${monitor.id}/matches`, key);
    expect(answer.status).toBe(200);
    expect(answer.body.data.matches.map((match) => [match.seq, match.tweet.id])).toEqual([[3, recent]]);
    expect(answer.body.data.next_since).toBe(3);
    expect(answer.body.meta.credits).toEqual({ charged: 1, remaining: 99 });
    expect(await server.usageTotal(accountId)).toBe(1);
    expect(await server.backend.monitors.get(accountId, monitor.id)).toMatchObject({ lastSeq: 3, chargedSeq: 3 });
  });
});
