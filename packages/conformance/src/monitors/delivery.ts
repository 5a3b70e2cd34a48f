// Delivering: the charge intent written before a debit and settled after it (or, left by a process that
// stopped, settled by the ledger's own record of the debit), the hold on a monitor's deliveries, and the
// webhook deliveries claimed under a lease that no two processes hold at once, with what each attempt
// leaves behind.
import { describe, expect } from "bun:test";
import type { Monitor, MonitorCharge, Monitors } from "@social/core";
import { created, type MonitorsTest, matchesOf, newMonitor, T0, WEBHOOK } from "./suite.ts";

/** T0's UTC day, as days since the epoch. */
const DAY = Math.floor(T0 / 86_400_000);

function charge(monitor: Pick<Monitor, "id" | "chargedSeq">, throughSeq: number, fields: Partial<MonitorCharge> = {}) {
  const afterSeq = monitor.chargedSeq;
  return {
    requestId: `${monitor.id}_${afterSeq + 1}_${throughSeq}`,
    afterSeq,
    throughSeq,
    credits: throughSeq - afterSeq,
    day: DAY,
    at: T0,
    ...fields,
  };
}

/** A monitor of `owner` with `count` matches. */
async function withMatches(
  monitors: Monitors,
  owner: { accountId: string; keyId: string },
  count: number,
  fields = {},
) {
  const monitor = await created(monitors, newMonitor(owner, fields));
  const tweets = Array.from({ length: count }, (_, i) => String(i + 1));
  await monitors.recordMatches([], matchesOf(monitor.id, tweets), T0);
  return { ...monitor, lastSeq: count };
}

const ids = (monitors: readonly Monitor[]) => monitors.map(({ id }) => id).sort();

export function deliveryConformance(monitorsTest: MonitorsTest): void {
  describe("charges", () => {
    monitorsTest(
      "a charge settled as made moves chargedSeq and counts its credits on its day",
      async ({ monitors, owners }) => {
        const ada = owners.ada.accountId;
        const monitor = await withMatches(monitors, owners.ada, 5);
        const first = charge(monitor, 3);
        expect(await monitors.beginCharge(monitor.id, first)).toBe(true);
        await monitors.settleCharge(monitor.id, first.requestId, true);
        expect(await monitors.get(ada, monitor.id)).toMatchObject({ chargedSeq: 3, spentDay: DAY, spentOnDay: 3 });
        const second = charge({ id: monitor.id, chargedSeq: 3 }, 4);
        expect(await monitors.beginCharge(monitor.id, second)).toBe(true);
        await monitors.settleCharge(monitor.id, second.requestId, true);
        expect(await monitors.get(ada, monitor.id)).toMatchObject({ chargedSeq: 4, spentDay: DAY, spentOnDay: 4 });
        // The next UTC day counts afresh.
        const nextDay = charge({ id: monitor.id, chargedSeq: 4 }, 5, { day: DAY + 1 });
        expect(await monitors.beginCharge(monitor.id, nextDay)).toBe(true);
        await monitors.settleCharge(monitor.id, nextDay.requestId, true);
        expect(await monitors.get(ada, monitor.id)).toMatchObject({ chargedSeq: 5, spentDay: DAY + 1, spentOnDay: 1 });
      },
    );

    monitorsTest(
      "a charge settled as not made leaves chargedSeq and the day's credits",
      async ({ monitors, owners }) => {
        const monitor = await withMatches(monitors, owners.ada, 2);
        const refused = charge(monitor, 2);
        expect(await monitors.beginCharge(monitor.id, refused)).toBe(true);
        await monitors.settleCharge(monitor.id, refused.requestId, false);
        expect(await monitors.get(owners.ada.accountId, monitor.id)).toMatchObject({ chargedSeq: 0, spentOnDay: 0 });
        // The intent is gone: the same charge can begin again.
        expect(await monitors.beginCharge(monitor.id, refused)).toBe(true);
      },
    );

    monitorsTest(
      "a charge is refused while another is pending, or once chargedSeq has moved",
      async ({ fixture, monitors, owners }) => {
        const monitor = await withMatches(monitors, owners.ada, 4);
        const pending = charge(monitor, 2);
        expect(await monitors.beginCharge(monitor.id, pending)).toBe(true);
        expect(await monitors.beginCharge(monitor.id, charge(monitor, 3))).toBe(false);
        expect(await fixture.peer.beginCharge(monitor.id, pending)).toBe(false);
        // Settling another request's intent does nothing.
        await monitors.settleCharge(monitor.id, `${monitor.id}_1_3`, true);
        expect(await monitors.get(owners.ada.accountId, monitor.id)).toMatchObject({ chargedSeq: 0 });
        await monitors.settleCharge(monitor.id, pending.requestId, true);
        // Begun from the old chargedSeq: refused.
        expect(await monitors.beginCharge(monitor.id, charge(monitor, 4))).toBe(false);
        expect(await monitors.beginCharge(monitor.id, charge({ id: monitor.id, chargedSeq: 2 }, 4))).toBe(true);
        expect(await monitors.beginCharge("mon_0000000000000000", charge(monitor, 1))).toBe(false);
      },
    );

    monitorsTest(
      "two processes beginning the same charge at once: one intent is written",
      async ({ fixture, monitors, owners }) => {
        const monitor = await withMatches(monitors, owners.ada, 3);
        const begun = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            (i % 2 === 0 ? monitors : fixture.peer).beginCharge(monitor.id, charge(monitor, 3)),
          ),
        );
        expect(begun.filter(Boolean)).toHaveLength(1);
      },
    );

    monitorsTest(
      "the pending intent is read back as written, until it is settled",
      async ({ fixture, monitors, owners }) => {
        const monitor = await withMatches(monitors, owners.ada, 3);
        expect(await monitors.pendingCharge(monitor.id)).toBeUndefined();
        const intent = charge(monitor, 3);
        expect(await monitors.beginCharge(monitor.id, intent)).toBe(true);
        expect(await fixture.peer.pendingCharge(monitor.id)).toEqual(intent);
        await monitors.settleCharge(monitor.id, intent.requestId, true);
        expect(await fixture.peer.pendingCharge(monitor.id)).toBeUndefined();
      },
    );

    monitorsTest(
      "a stale intent is settled by the ledger: charged when its debit was made",
      async ({ fixture, monitors, owners }) => {
        const ada = owners.ada;
        const charged = await withMatches(monitors, ada, 3);
        const intent = charge(charged, 3);
        expect(await monitors.beginCharge(charged.id, intent)).toBe(true);
        const debit = { requestId: intent.requestId, keyId: ada.keyId, endpoint: "monitor", credits: 3 };
        expect(await fixture.ledger.debit(ada.accountId, debit)).toEqual({ ok: true, remaining: 997 });
        // Not stale yet: written at T0, not before it.
        await monitors.resolveStaleCharge(charged.id, T0);
        expect(await monitors.beginCharge(charged.id, charge(charged, 2))).toBe(false);
        await fixture.peer.resolveStaleCharge(charged.id, T0 + 1);
        expect(await monitors.get(ada.accountId, charged.id)).toMatchObject({ chargedSeq: 3, spentOnDay: 3 });

        const uncharged = await withMatches(monitors, ada, 2, { now: T0 + 1 });
        expect(await monitors.beginCharge(uncharged.id, charge(uncharged, 2))).toBe(true);
        await monitors.resolveStaleCharge(uncharged.id, T0 + 1);
        expect(await monitors.get(ada.accountId, uncharged.id)).toMatchObject({ chargedSeq: 0, spentOnDay: 0 });
        expect(await monitors.beginCharge(uncharged.id, charge(uncharged, 2))).toBe(true);
        // Nothing pending: nothing to settle.
        await monitors.resolveStaleCharge(charged.id, T0 + 1);
        expect(await fixture.ledger.balance(ada.accountId)).toBe(997);
      },
    );

    monitorsTest(
      "a hold is set, keeps its first time while its reason stays, and lifts",
      async ({ monitors, owners }) => {
        const ada = owners.ada.accountId;
        const monitor = await created(monitors, newMonitor(owners.ada));
        const hold = { reason: "insufficient_credits", message: "The balance cannot pay.", since: T0 } as const;
        await monitors.setHold(monitor.id, hold);
        expect((await monitors.get(ada, monitor.id))?.hold).toEqual(hold);
        await monitors.setHold(monitor.id, { ...hold, message: "The key's limit is reached.", since: T0 + 5 });
        expect((await monitors.get(ada, monitor.id))?.hold).toEqual({
          ...hold,
          message: "The key's limit is reached.",
        });
        await monitors.setHold(monitor.id, { reason: "daily_cap", message: "Cap reached.", since: T0 + 9 });
        expect((await monitors.get(ada, monitor.id))?.hold).toEqual({
          reason: "daily_cap",
          message: "Cap reached.",
          since: T0 + 9,
        });
        await monitors.setHold(monitor.id, undefined);
        expect(await monitors.get(ada, monitor.id)).toEqual(monitor);
      },
    );
  });

  describe("webhook deliveries", () => {
    monitorsTest("only active webhook monitors with a delivery due are claimed", async ({ monitors, owners }) => {
      const ada = owners.ada;
      const due = await withMatches(monitors, ada, 1, { delivery: WEBHOOK });
      await withMatches(monitors, ada, 1);
      await created(monitors, newMonitor(ada, { delivery: WEBHOOK }));
      const paused = await withMatches(monitors, ada, 1, { delivery: WEBHOOK });
      await monitors.update(ada.accountId, paused.id, { status: "paused" }, T0);
      const paid = await withMatches(monitors, ada, 1, { delivery: WEBHOOK });
      expect(await monitors.beginCharge(paid.id, charge(paid, 1))).toBe(true);
      await monitors.settleCharge(paid.id, charge(paid, 1).requestId, true);
      // A pending charge is work too: it must be settled.
      const pending = await withMatches(monitors, ada, 1, { delivery: WEBHOOK });
      expect(await monitors.beginCharge(pending.id, charge(pending, 1))).toBe(true);

      const claimed = await monitors.claimWebhooks("worker", T0, 30_000, 10);
      expect(ids(claimed)).toEqual([due.id, pending.id].sort());
      expect(claimed.find(({ id }) => id === due.id)).toEqual(due);
    });

    monitorsTest(
      "a claim holds its lease against every claimer until it expires",
      async ({ fixture, monitors, owners }) => {
        const monitor = await withMatches(monitors, owners.ada, 1, { delivery: WEBHOOK });
        expect(ids(await monitors.claimWebhooks("a", T0, 1_000, 10))).toEqual([monitor.id]);
        expect(await monitors.claimWebhooks("a", T0 + 1, 1_000, 10)).toEqual([]);
        expect(await fixture.peer.claimWebhooks("b", T0 + 999, 1_000, 10)).toEqual([]);
        expect(ids(await fixture.peer.claimWebhooks("b", T0 + 1_000, 1_000, 10))).toEqual([monitor.id]);
        // The first owner's lease is gone: its finish changes nothing.
        await monitors.finishWebhook(monitor.id, "a", { outcome: "failed", error: "late", nextAttemptAt: T0 + 9_999 });
        expect(await monitors.get(owners.ada.accountId, monitor.id)).not.toHaveProperty("failure");
        expect(await monitors.claimWebhooks("c", T0 + 1_500, 1_000, 10)).toEqual([]);
        await fixture.peer.finishWebhook(monitor.id, "b", { outcome: "delivered" });
        expect(ids(await monitors.claimWebhooks("c", T0 + 1_500, 1_000, 10))).toEqual([monitor.id]);
      },
    );

    monitorsTest(
      "a batch is recorded by its lease's owner only, and a retry from any process claims it",
      async ({ fixture, monitors, owners }) => {
        const monitor = await withMatches(monitors, owners.ada, 3, { delivery: WEBHOOK });
        await monitors.claimWebhooks("a", T0, 1_000, 10);
        await fixture.peer.recordBatch(monitor.id, "b", 3);
        expect(await monitors.get(owners.ada.accountId, monitor.id)).toMatchObject({ batchThroughSeq: 0 });
        await monitors.recordBatch(monitor.id, "a", 2);
        await monitors.finishWebhook(monitor.id, "a", { outcome: "failed", error: "HTTP 500", nextAttemptAt: T0 });
        const [retried] = await fixture.peer.claimWebhooks("b", T0, 1_000, 10);
        expect(retried).toMatchObject({ id: monitor.id, chargedSeq: 0, batchThroughSeq: 2 });
      },
    );

    monitorsTest(
      "claimers racing from two processes never get the same monitor",
      async ({ fixture, monitors, owners }) => {
        const all: string[] = [];
        for (let i = 0; i < 6; i++) all.push((await withMatches(monitors, owners.ada, 1, { delivery: WEBHOOK })).id);
        const claims = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            (i % 2 === 0 ? monitors : fixture.peer).claimWebhooks(`w${i}`, T0, 30_000, 2),
          ),
        );
        const claimed = claims.flatMap(ids);
        expect(new Set(claimed).size).toBe(claimed.length);
        const rest = ids(await monitors.claimWebhooks("last", T0, 30_000, 10));
        expect([...claimed, ...rest].sort()).toEqual(all.sort());
      },
    );

    monitorsTest("at most `limit` are claimed, the longest due first", async ({ monitors, owners }) => {
      const first = await withMatches(monitors, owners.ada, 1, { delivery: WEBHOOK });
      const second = await withMatches(monitors, owners.ada, 1, { delivery: WEBHOOK });
      const third = await withMatches(monitors, owners.ada, 1, { delivery: WEBHOOK });
      for (const [monitor, due] of [
        [first, T0 + 30],
        [second, T0 + 10],
        [third, T0 + 20],
      ] as const) {
        await monitors.claimWebhooks("setup", T0, 1, 10);
        await monitors.finishWebhook(monitor.id, "setup", { outcome: "waiting", nextAttemptAt: due });
      }
      expect(await monitors.claimWebhooks("w", T0 + 9, 30_000, 10)).toEqual([]);
      expect(ids(await monitors.claimWebhooks("w", T0 + 100, 30_000, 2))).toEqual([second.id, third.id].sort());
      expect(ids(await monitors.claimWebhooks("w", T0 + 100, 30_000, 2))).toEqual([first.id]);
    });

    monitorsTest(
      "a failed attempt counts the failing run from its first attempt; waiting defers",
      async ({ monitors, owners }) => {
        const ada = owners.ada.accountId;
        const monitor = await withMatches(monitors, owners.ada, 1, { delivery: WEBHOOK });
        await monitors.claimWebhooks("w", T0, 30_000, 10);
        await monitors.finishWebhook(monitor.id, "w", {
          outcome: "failed",
          error: "HTTP 502",
          nextAttemptAt: T0 + 1_000,
        });
        expect((await monitors.get(ada, monitor.id))?.failure).toEqual({
          since: T0,
          attempts: 1,
          lastError: "HTTP 502",
          nextAttemptAt: T0 + 1_000,
        });
        expect(await monitors.claimWebhooks("w", T0 + 999, 30_000, 10)).toEqual([]);
        const [retried] = await monitors.claimWebhooks("w", T0 + 1_000, 30_000, 10);
        expect(retried?.failure?.attempts).toBe(1);
        await monitors.finishWebhook(monitor.id, "w", {
          outcome: "failed",
          error: "timeout",
          nextAttemptAt: T0 + 5_000,
        });
        expect((await monitors.get(ada, monitor.id))?.failure).toEqual({
          since: T0,
          attempts: 2,
          lastError: "timeout",
          nextAttemptAt: T0 + 5_000,
        });
        // Held: nothing sent, looked at again later; the failing run stays until a delivery succeeds.
        await monitors.claimWebhooks("w", T0 + 5_000, 30_000, 10);
        await monitors.finishWebhook(monitor.id, "w", { outcome: "waiting", nextAttemptAt: T0 + 60_000 });
        expect(await monitors.claimWebhooks("w", T0 + 59_999, 30_000, 10)).toEqual([]);
        expect((await monitors.get(ada, monitor.id))?.failure?.attempts).toBe(2);
        await monitors.claimWebhooks("w", T0 + 60_000, 30_000, 10);
        await monitors.finishWebhook(monitor.id, "w", { outcome: "delivered" });
        const delivered = await monitors.get(ada, monitor.id);
        expect(delivered).not.toHaveProperty("failure");
        // Still unpaid matches (no charge was settled here): due again at once.
        expect(ids(await monitors.claimWebhooks("w", T0 + 60_000, 30_000, 10))).toEqual([monitor.id]);
      },
    );

    monitorsTest(
      "a failure past the retry window pauses the monitor, which then matches nothing",
      async ({ monitors, owners }) => {
        const ada = owners.ada.accountId;
        const monitor = await withMatches(monitors, owners.ada, 1, { delivery: WEBHOOK });
        const version = await monitors.queriesVersion();
        await monitors.claimWebhooks("w", T0, 30_000, 10);
        const pause = { reason: "webhook_failing", message: "Failed for 24 hours.", since: T0 + 7 } as const;
        await monitors.finishWebhook(monitor.id, "w", {
          outcome: "failed",
          error: "HTTP 500",
          nextAttemptAt: T0,
          pause,
        });
        expect(await monitors.get(ada, monitor.id)).toMatchObject({ status: "paused", pausedReason: pause });
        expect(await monitors.queriesVersion()).toBeGreaterThan(version);
        expect(await monitors.activeQueries()).toEqual([]);
        expect(await monitors.claimWebhooks("w", T0 + 1, 30_000, 10)).toEqual([]);
        await monitors.recordMatches([], matchesOf(monitor.id, ["99"]), T0 + 2);
        expect(await monitors.get(ada, monitor.id)).toMatchObject({ lastSeq: 1 });
      },
    );
  });
}
