// Managing monitors: created, listed, read, changed and removed by their account only; the per-account
// limit held even when two processes create at once; and the version of the active queries, which moves
// with every change the matcher must see.
import { describe, expect } from "bun:test";
import { created, type MonitorsTest, matchesOf, newMonitor, T0, WEBHOOK } from "./suite.ts";

export function managementConformance(monitorsTest: MonitorsTest): void {
  describe("management", () => {
    monitorsTest("a new monitor is active, with nothing matched, charged or held", async ({ monitors, owners }) => {
      const fields = newMonitor(owners.ada, { name: "Coffee", delivery: WEBHOOK, dailyCreditCap: 50 });
      const monitor = await created(monitors, fields);
      expect(monitor).toEqual({
        id: fields.id,
        accountId: owners.ada.accountId,
        keyId: owners.ada.keyId,
        name: "Coffee",
        query: "coffee",
        delivery: WEBHOOK,
        dailyCreditCap: 50,
        status: "active",
        secret: fields.secret,
        createdAt: T0,
        updatedAt: T0,
        lastSeq: 0,
        chargedSeq: 0,
        batchThroughSeq: 0,
        spentDay: 0,
        spentOnDay: 0,
      });
      expect(await monitors.get(owners.ada.accountId, fields.id)).toEqual(monitor);
      const pull = await created(monitors, newMonitor(owners.ada, { now: T0 + 1 }));
      expect(pull.delivery).toEqual({ type: "pull" });
      expect(pull).not.toHaveProperty("name");
      expect(pull).not.toHaveProperty("dailyCreditCap");
    });

    monitorsTest("an account lists its own monitors, oldest first", async ({ monitors, owners }) => {
      const second = await created(monitors, newMonitor(owners.ada, { now: T0 + 2 }));
      const first = await created(monitors, newMonitor(owners.ada, { now: T0 + 1 }));
      await created(monitors, newMonitor(owners.bob));
      expect(await monitors.list(owners.ada.accountId)).toEqual([first, second]);
      expect(await monitors.list("acct_nobody")).toEqual([]);
    });

    monitorsTest("another account's monitor is neither read, changed nor removed", async ({ monitors, owners }) => {
      const monitor = await created(monitors, newMonitor(owners.ada));
      const bob = owners.bob.accountId;
      expect(await monitors.get(bob, monitor.id)).toBeUndefined();
      expect(await monitors.update(bob, monitor.id, { name: "mine" }, T0 + 1)).toBeUndefined();
      expect(await monitors.remove(bob, monitor.id)).toBe(false);
      expect(await monitors.get(owners.ada.accountId, monitor.id)).toEqual(monitor);
      expect(await monitors.get(owners.ada.accountId, "mon_0000000000000000")).toBeUndefined();
      expect(await monitors.update(owners.ada.accountId, "mon_0000000000000000", { name: "x" }, T0)).toBeUndefined();
    });

    monitorsTest(
      "a change writes what it names, keeps the rest and clears what it sets to null",
      async ({ monitors, owners }) => {
        const ada = owners.ada.accountId;
        const monitor = await created(monitors, newMonitor(owners.ada, { name: "Coffee", dailyCreditCap: 5 }));
        const renamed = await monitors.update(ada, monitor.id, { query: "tea", delivery: WEBHOOK }, T0 + 10);
        expect(renamed).toEqual({ ...monitor, query: "tea", delivery: WEBHOOK, updatedAt: T0 + 10 });
        const cleared = await monitors.update(ada, monitor.id, { name: null, dailyCreditCap: null }, T0 + 20);
        const { name: _name, dailyCreditCap: _cap, ...rest } = monitor;
        expect(cleared).toEqual({ ...rest, query: "tea", delivery: WEBHOOK, updatedAt: T0 + 20 });
        expect(await monitors.update(ada, monitor.id, { status: "paused" }, T0 + 30)).toMatchObject({
          status: "paused",
        });
        expect(await monitors.get(ada, monitor.id)).toEqual({
          ...rest,
          query: "tea",
          delivery: WEBHOOK,
          status: "paused",
          updatedAt: T0 + 30,
        });
      },
    );

    monitorsTest(
      "back to active clears why we paused it, the hold and the failing run",
      async ({ monitors, owners }) => {
        const ada = owners.ada.accountId;
        const monitor = await created(monitors, newMonitor(owners.ada, { delivery: WEBHOOK }));
        await monitors.recordMatches([], matchesOf(monitor.id, ["1"]), T0);
        await monitors.setHold(monitor.id, { reason: "insufficient_credits", message: "No credits.", since: T0 });
        const [claimed] = await monitors.claimWebhooks("worker", T0, 30_000, 10);
        expect(claimed?.id).toBe(monitor.id);
        const pause = { reason: "webhook_failing", message: "Failing for 24 hours.", since: T0 + 5 } as const;
        await monitors.finishWebhook(monitor.id, "worker", {
          outcome: "failed",
          error: "HTTP 500",
          nextAttemptAt: T0 + 60_000,
          pause,
        });
        expect(await monitors.get(ada, monitor.id)).toMatchObject({
          status: "paused",
          pausedReason: pause,
          hold: { reason: "insufficient_credits" },
          failure: { attempts: 1 },
        });
        const active = await monitors.update(ada, monitor.id, { status: "active" }, T0 + 100);
        expect(active).toEqual({ ...monitor, lastSeq: 1, status: "active", updatedAt: T0 + 100 });
        // Its delivery is due at once again.
        expect((await monitors.claimWebhooks("worker", T0 + 100, 30_000, 10)).map(({ id }) => id)).toEqual([
          monitor.id,
        ]);
      },
    );

    monitorsTest("a removed monitor is gone with its matches", async ({ monitors, owners }) => {
      const monitor = await created(monitors, newMonitor(owners.ada));
      const other = await created(monitors, newMonitor(owners.ada, { now: T0 + 1 }));
      await monitors.recordMatches([], [...matchesOf(monitor.id, ["1", "2"]), ...matchesOf(other.id, ["1"])], T0);
      expect(await monitors.remove(owners.ada.accountId, monitor.id)).toBe(true);
      expect(await monitors.get(owners.ada.accountId, monitor.id)).toBeUndefined();
      expect(await monitors.matches(monitor.id, 0, 10)).toEqual([]);
      expect(await monitors.remove(owners.ada.accountId, monitor.id)).toBe(false);
      expect(await monitors.matches(other.id, 0, 10)).toHaveLength(1);
      // Matching it again records nothing.
      await monitors.recordMatches([], matchesOf(monitor.id, ["3"]), T0);
      expect(await monitors.matches(monitor.id, 0, 10)).toEqual([]);
    });

    monitorsTest(
      "a monitor with more matches than one transaction removes goes whole, and only by its account",
      async ({ monitors, owners }) => {
        const monitor = await created(monitors, newMonitor(owners.ada));
        // More than an adapter removes in one transaction (store-common's MATCHES_REMOVED_AT_ONCE).
        const tweetIds = Array.from({ length: 12_000 }, (_, index) => String(1_000 + index));
        await monitors.recordMatches([], matchesOf(monitor.id, tweetIds), T0);
        expect(await monitors.remove(owners.bob.accountId, monitor.id)).toBe(false);
        expect(await monitors.matches(monitor.id, 0, 1)).toHaveLength(1);
        expect(await monitors.remove(owners.ada.accountId, monitor.id)).toBe(true);
        expect(await monitors.get(owners.ada.accountId, monitor.id)).toBeUndefined();
        expect(await monitors.matches(monitor.id, 0, 10)).toEqual([]);
      },
    );

    monitorsTest(
      "an account holds at most `limit` monitors; other accounts are not counted",
      async ({ monitors, owners }) => {
        for (let i = 0; i < 3; i++) await created(monitors, newMonitor(owners.ada), 3);
        expect(await monitors.create(newMonitor(owners.ada), 3)).toEqual({ ok: false, reason: "limit" });
        expect((await monitors.create(newMonitor(owners.bob), 3)).ok).toBe(true);
        expect(await monitors.list(owners.ada.accountId)).toHaveLength(3);
        // A removed one makes room.
        const [first] = await monitors.list(owners.ada.accountId);
        await monitors.remove(owners.ada.accountId, first?.id ?? "");
        expect((await monitors.create(newMonitor(owners.ada), 3)).ok).toBe(true);
      },
    );

    monitorsTest(
      "creates racing from two processes at the limit: exactly the limit succeed",
      async ({ fixture, monitors, owners }) => {
        await created(monitors, newMonitor(owners.ada), 5);
        const creations = await Promise.all(
          Array.from({ length: 16 }, (_, i) =>
            (i % 2 === 0 ? monitors : fixture.peer).create(newMonitor(owners.ada), 5),
          ),
        );
        expect(creations.filter((creation) => creation.ok)).toHaveLength(4);
        expect(await monitors.list(owners.ada.accountId)).toHaveLength(5);
      },
    );

    monitorsTest(
      "the active queries and their version follow every change the matcher must see",
      async ({ monitors, owners }) => {
        const ada = owners.ada.accountId;
        const versions = [await monitors.queriesVersion()];
        const moved = async () => {
          const version = await monitors.queriesVersion();
          const previous = versions.at(-1) as number;
          versions.push(version);
          return version > previous;
        };
        const coffee = await created(monitors, newMonitor(owners.ada));
        expect(await moved()).toBe(true);
        const tea = await created(monitors, newMonitor(owners.ada, { query: "tea", now: T0 + 1 }));
        expect(await moved()).toBe(true);
        const byId = (list: { id: string; query: string }[]) => [...list].sort((a, b) => a.id.localeCompare(b.id));
        expect(byId(await monitors.activeQueries())).toEqual(
          byId([
            { id: coffee.id, query: "coffee" },
            { id: tea.id, query: "tea" },
          ]),
        );
        await monitors.update(ada, coffee.id, { name: "renamed", dailyCreditCap: 3 }, T0 + 2);
        expect(await moved()).toBe(false);
        await monitors.update(ada, coffee.id, { query: "espresso" }, T0 + 3);
        expect(await moved()).toBe(true);
        await monitors.update(ada, tea.id, { status: "paused" }, T0 + 4);
        expect(await moved()).toBe(true);
        expect(await monitors.activeQueries()).toEqual([{ id: coffee.id, query: "espresso" }]);
        await monitors.update(ada, tea.id, { status: "active" }, T0 + 5);
        expect(await moved()).toBe(true);
        await monitors.remove(ada, tea.id);
        expect(await moved()).toBe(true);
        expect(await monitors.activeQueries()).toEqual([{ id: coffee.id, query: "espresso" }]);
      },
    );
  });
}
