// Matching: the posts an import adds wait as arrivals while an active monitor exists (replaced or kept
// copies never do); recorded matches are numbered 1, 2, … per monitor in the order their posts arrived,
// each post once however often (or by however many processes at once) it is recorded, never for a monitor
// paused or removed meanwhile; recording removes the arrivals; matches are read in pages by seq.
import { describe, expect } from "bun:test";
import { created, importPosts, type MonitorsTest, matchesOf, newMonitor, post, T0 } from "./suite.ts";

export function matchingConformance(monitorsTest: MonitorsTest): void {
  describe("matching", () => {
    monitorsTest(
      "an import adds arrivals only for new posts, and only while a monitor is active",
      async ({ fixture, monitors, owners }) => {
        const { worldImport } = fixture;
        await importPosts(worldImport, [post("1")]);
        expect(await monitors.arrivals(10)).toEqual([]);

        const monitor = await created(monitors, newMonitor(owners.ada));
        // 1 again with another count is a replaced copy; 2 and 3 are new.
        await importPosts(worldImport, [post("2"), post("1", undefined, 5), post("3")]);
        // 3 again is a kept copy, 1 a replaced one; 4 is new.
        await importPosts(worldImport, [post("3"), post("4"), post("1", undefined, 9)]);
        const arrivals = await monitors.arrivals(10);
        expect(arrivals.map(({ tweetId }) => tweetId)).toEqual(["2", "3", "4"]);
        const seqs = arrivals.map(({ seq }) => seq);
        expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
        expect(await monitors.arrivals(2)).toEqual(arrivals.slice(0, 2));

        await monitors.update(owners.ada.accountId, monitor.id, { status: "paused" }, T0 + 1);
        await importPosts(worldImport, [post("5")]);
        expect(await monitors.arrivals(10)).toEqual(arrivals);
      },
    );

    monitorsTest(
      "matches are numbered per monitor in arrival order; recording removes the arrivals",
      async ({ fixture, monitors, owners }) => {
        const first = await created(monitors, newMonitor(owners.ada));
        const second = await created(monitors, newMonitor(owners.bob, { now: T0 + 1 }));
        await importPosts(fixture.worldImport, [post("10"), post("11"), post("12")]);
        const arrivals = await monitors.arrivals(10);
        await monitors.recordMatches(
          arrivals,
          [...matchesOf(first.id, ["12", "10"]), ...matchesOf(second.id, ["11"]), ...matchesOf("mon_gone", ["10"])],
          T0 + 5,
        );
        expect(await monitors.arrivals(10)).toEqual([]);
        expect(await monitors.matches(first.id, 0, 10)).toEqual([
          { seq: 1, tweetId: "10", matchedAt: T0 + 5 },
          { seq: 2, tweetId: "12", matchedAt: T0 + 5 },
        ]);
        expect(await monitors.matches(second.id, 0, 10)).toEqual([{ seq: 1, tweetId: "11", matchedAt: T0 + 5 }]);
        expect(await monitors.get(owners.ada.accountId, first.id)).toMatchObject({ lastSeq: 2, chargedSeq: 0 });

        await importPosts(fixture.worldImport, [post("13")]);
        const next = await monitors.arrivals(10);
        await monitors.recordMatches(next, matchesOf(first.id, ["13"]), T0 + 6);
        expect((await monitors.matches(first.id, 2, 10)).map(({ seq, tweetId }) => [seq, tweetId])).toEqual([
          [3, "13"],
        ]);
      },
    );

    monitorsTest("a post recorded again for a monitor is not matched twice", async ({ monitors, owners }) => {
      const monitor = await created(monitors, newMonitor(owners.ada));
      await monitors.recordMatches([], matchesOf(monitor.id, ["1", "2"]), T0);
      await monitors.recordMatches([], matchesOf(monitor.id, ["2", "1", "3", "3"]), T0 + 1);
      expect((await monitors.matches(monitor.id, 0, 10)).map(({ seq, tweetId }) => [seq, tweetId])).toEqual([
        [1, "1"],
        [2, "2"],
        [3, "3"],
      ]);
      expect(await monitors.get(owners.ada.accountId, monitor.id)).toMatchObject({ lastSeq: 3 });
    });

    monitorsTest(
      "a paused monitor records no match; an active one beside it does",
      async ({ fixture, monitors, owners }) => {
        const paused = await created(monitors, newMonitor(owners.ada));
        const active = await created(monitors, newMonitor(owners.ada, { now: T0 + 1 }));
        await importPosts(fixture.worldImport, [post("20")]);
        await monitors.update(owners.ada.accountId, paused.id, { status: "paused" }, T0 + 2);
        await monitors.recordMatches(
          await monitors.arrivals(10),
          [...matchesOf(paused.id, ["20"]), ...matchesOf(active.id, ["20"])],
          T0 + 3,
        );
        expect(await monitors.matches(paused.id, 0, 10)).toEqual([]);
        expect(await monitors.get(owners.ada.accountId, paused.id)).toMatchObject({ lastSeq: 0 });
        expect(await monitors.matches(active.id, 0, 10)).toHaveLength(1);
        expect(await monitors.arrivals(10)).toEqual([]);
      },
    );

    monitorsTest(
      "two processes recording the same matches at once record each once, without gaps",
      async ({ fixture, monitors, owners }) => {
        const monitor = await created(monitors, newMonitor(owners.ada));
        const other = await created(monitors, newMonitor(owners.ada, { now: T0 + 1 }));
        const tweets = Array.from({ length: 20 }, (_, i) => String(100 + i));
        const rounds = Array.from({ length: 8 }, (_, round) => {
          const recorder = round % 2 === 0 ? monitors : fixture.peer;
          const batch = tweets.slice(round * 2, round * 2 + 8);
          return recorder.recordMatches([], [...matchesOf(monitor.id, batch), ...matchesOf(other.id, batch)], T0);
        });
        await Promise.all(rounds);
        for (const id of [monitor.id, other.id]) {
          const matches = await monitors.matches(id, 0, 100);
          expect(matches.map(({ seq }) => seq)).toEqual(matches.map((_, i) => i + 1));
          expect(new Set(matches.map(({ tweetId }) => tweetId))).toEqual(new Set(tweets));
          expect(matches).toHaveLength(tweets.length);
          expect(await monitors.get(owners.ada.accountId, id)).toMatchObject({ lastSeq: tweets.length });
        }
      },
    );

    monitorsTest("matches are read in pages above a seq, oldest first", async ({ monitors, owners }) => {
      const monitor = await created(monitors, newMonitor(owners.ada));
      await monitors.recordMatches([], matchesOf(monitor.id, ["1", "2", "3", "4", "5"]), T0);
      const seqs = async (after: number, limit: number) =>
        (await monitors.matches(monitor.id, after, limit)).map(({ seq }) => seq);
      expect(await seqs(0, 2)).toEqual([1, 2]);
      expect(await seqs(2, 2)).toEqual([3, 4]);
      expect(await seqs(4, 2)).toEqual([5]);
      expect(await seqs(5, 2)).toEqual([]);
      expect(await monitors.matches("mon_0000000000000000", 0, 10)).toEqual([]);
    });

    monitorsTest("post ids past 2^53 are stored and read back exactly", async ({ fixture, monitors, owners }) => {
      const monitor = await created(monitors, newMonitor(owners.ada));
      const big = "1862345678901234567";
      await importPosts(fixture.worldImport, [post(big)]);
      const arrivals = await monitors.arrivals(10);
      expect(arrivals.map(({ tweetId }) => tweetId)).toEqual([big]);
      await monitors.recordMatches(arrivals, matchesOf(monitor.id, [big]), T0);
      expect((await monitors.matches(monitor.id, 0, 10)).map(({ tweetId }) => tweetId)).toEqual([big]);
    });
  });
}
