// An imported world's clock is its newest post, and a count asked without end_time ends at that clock:
// the newest post must be counted there, as search finds it, at every granularity on both adapters.
import { describe, expect, test } from "bun:test";
import { countWindow, GRANULARITIES, parseQuery } from "@social/core";
import { runAdmin } from "@social/testing";
import { type Json, SAMPLE, samplePages, testDatabases, withStore } from "./databases.ts";

const databases = testDatabases("counts");

const newest = samplePages()
  .flatMap((page) => page.data as (Json & { id: string; created_at: string; conversation_id: string })[])
  .reduce((a, b) => (Date.parse(b.created_at) > Date.parse(a.created_at) ? b : a));

describe.each(["sqlite", "postgres"] as const)("counts' default window on %s", (adapter) => {
  test("counts the newest imported post, which is the world's clock", async () => {
    const url = await databases.create(adapter);
    expect((await runAdmin(url, ["import", SAMPLE])).code).toBe(0);
    await withStore(url, async ({ store }) => {
      const clock = await store.clockMs();
      expect(clock).toBe(Date.parse(newest.created_at));
      const query = parseQuery(`conversation_id:${newest.conversation_id}`);
      const found = (await store.searchTweets(query, "recency", { size: 100 })).items.map((tweet) => tweet.id);
      expect(found).toContain(newest.id);
      for (const granularity of GRANULARITIES) {
        const window = countWindow(granularity, clock as number);
        const counts = await store.countTweets(query, window);
        expect(
          counts.reduce((sum, n) => sum + n, 0),
          granularity,
        ).toBe(found.length);
      }
    });
  });
});
