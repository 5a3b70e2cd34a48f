// The retention of matches (Monitors.purgeMatches): the ones matched before the cut-off go, a chunk at a
// time, of every monitor; newer ones stay, and a monitor's seqs, lastSeq and chargedSeq are untouched, so
// that reads go on from the same cursors and new matches take the next seqs.
import { describe, expect } from "bun:test";
import { created, type MonitorsTest, matchesOf, newMonitor, T0 } from "./suite.ts";

const DAY_MS = 86_400_000;
const OLD = T0 - 3 * DAY_MS;
const CUT_OFF = T0 - DAY_MS;

export function retentionConformance(monitorsTest: MonitorsTest): void {
  describe("retention", () => {
    monitorsTest(
      "old matches are purged in chunks, newer ones kept, seqs and chargedSeq untouched",
      async ({ fixture, monitors, owners }) => {
        const ada = await created(monitors, newMonitor(owners.ada));
        const bob = await created(monitors, newMonitor(owners.bob));
        await monitors.recordMatches([], matchesOf(ada.id, ["1", "2", "3", "4", "5"]), OLD);
        await monitors.recordMatches([], matchesOf(bob.id, ["1", "2", "3"]), OLD);
        await monitors.recordMatches([], matchesOf(ada.id, ["6"]), CUT_OFF);
        await monitors.recordMatches([], matchesOf(ada.id, ["7"]), T0);
        const requestId = `${ada.id}_1_2`;
        const charge = { requestId, afterSeq: 0, throughSeq: 2, credits: 2, day: 0, at: T0 };
        expect(await monitors.beginCharge(ada.id, charge)).toBe(true);
        await monitors.settleCharge(ada.id, requestId, true);

        // Eight old matches, three at most at a time; the caller repeats until a chunk comes short.
        expect(await monitors.purgeMatches(CUT_OFF, 3)).toBe(3);
        expect(await fixture.peer.purgeMatches(CUT_OFF, 3)).toBe(3);
        expect(await monitors.purgeMatches(CUT_OFF, 3)).toBe(2);
        expect(await monitors.purgeMatches(CUT_OFF, 3)).toBe(0);

        // One matched at the cut-off itself is not older than it.
        expect((await monitors.matches(ada.id, 0, 10)).map((match) => match.seq)).toEqual([6, 7]);
        expect(await monitors.matches(bob.id, 0, 10)).toEqual([]);
        expect(await monitors.get(owners.ada.accountId, ada.id)).toMatchObject({ lastSeq: 7, chargedSeq: 2 });
        expect(await monitors.get(owners.bob.accountId, bob.id)).toMatchObject({ lastSeq: 3, chargedSeq: 0 });

        // A read from a cursor inside the purged range serves what remains; new matches take the next seqs.
        expect(await monitors.matches(ada.id, 3, 1)).toEqual([{ seq: 6, tweetId: "6", matchedAt: CUT_OFF }]);
        await monitors.recordMatches([], matchesOf(ada.id, ["1", "8"]), T0);
        expect((await monitors.matches(ada.id, 2, 10)).map((match) => [match.seq, match.tweetId])).toEqual([
          [6, "6"],
          [7, "7"],
          [8, "1"],
          [9, "8"],
        ]);
      },
    );
  });
}
