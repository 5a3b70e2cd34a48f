// The Monitors conformance suite (@social/conformance) on SQLite: a fresh database file per test, reached
// through two connections as two processes would.
import { describe, expect, test } from "bun:test";
import { type MonitorsFixture, monitorsConformance } from "@social/conformance";
import { newMonitorId, newMonitorSecret } from "@social/core";
import { SqliteAccounts, SqliteLedger, SqliteMonitors, SqliteWorldImport } from "../src/index.ts";
import { twoSqliteConnections } from "./two-connections.ts";

monitorsConformance("SQLite", async (): Promise<MonitorsFixture> => {
  const { db, peerDb, close } = await twoSqliteConnections("monitors");
  return {
    monitors: new SqliteMonitors(db),
    peer: new SqliteMonitors(peerDb),
    accounts: new SqliteAccounts(db),
    ledger: new SqliteLedger(db),
    worldImport: new SqliteWorldImport(db),
    close: async () => close(),
  };
});

describe("SQLite monitors, idle", () => {
  test("asking for due webhooks when none is due takes no write lock", async () => {
    const { db, peerDb, close } = await twoSqliteConnections("monitors-idle");
    try {
      const monitors = new SqliteMonitors(db);
      // What the other process sees of the ledger's file: it moves when another connection commits there.
      const version = peerDb.query<{ data_version: number }, []>("PRAGMA ledger.data_version");
      const before = version.get()?.data_version;
      // Another process holds the write lock: a claim that needs it would wait, then fail as locked.
      peerDb.run("BEGIN IMMEDIATE");
      expect(await monitors.claimWebhooks("idle", Date.now(), 60_000, 8)).toEqual([]);
      peerDb.run("ROLLBACK");
      expect(version.get()?.data_version).toBe(before);
    } finally {
      close();
    }
  });
});

describe("SQLite monitors, removed", () => {
  test("a monitor with very many matches goes a part at a time, other work going on in between", async () => {
    const { db, peerDb, close } = await twoSqliteConnections("monitors-removal");
    try {
      const monitors = new SqliteMonitors(db);
      const peer = new SqliteMonitors(peerDb);
      const { account, key } = await new SqliteAccounts(db).openAccount("Ada", 0);
      const creation = await monitors.create(
        {
          id: newMonitorId(),
          accountId: account.id,
          keyId: key.keyId,
          query: "coffee",
          delivery: { type: "pull" },
          secret: newMonitorSecret(),
          now: Date.now(),
        },
        100,
      );
      if (!creation.ok) throw new Error("the monitor was refused");
      const { id } = creation.monitor;
      const many = Array.from({ length: 25_000 }, (_, index) => ({
        monitorId: id,
        tweetId: String(1_000_000 + index),
      }));
      await monitors.recordMatches([], many, Date.now());

      // What another process sees while the monitor is removed: its oldest match, turn after turn.
      const removal = monitors.remove(account.id, id);
      let removed = false;
      void removal.then(() => {
        removed = true;
      });
      const oldest: number[] = [];
      while (!removed) {
        oldest.push((await peer.matches(id, 0, 1))[0]?.seq ?? 0);
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(await removal).toBe(true);
      // Part-way: the oldest matches gone, the newest still there, and this process was not held up.
      expect(oldest.some((seq) => seq > 1)).toBe(true);
      expect(await peer.matches(id, 0, 10)).toEqual([]);
      expect(await peer.get(account.id, id)).toBeUndefined();
    } finally {
      close();
    }
  });
});
