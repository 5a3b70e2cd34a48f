// The Monitors conformance suite (@social/conformance) on SQLite: a fresh database file per test, reached
// through two connections as two processes would.
import { describe, expect, test } from "bun:test";
import { type MonitorsFixture, monitorsConformance } from "@social/conformance";
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
      // Another process holds the write lock: a claim that needs it would wait, then fail as locked.
      peerDb.run("BEGIN IMMEDIATE");
      const version = db.query<{ data_version: number }, []>("PRAGMA data_version");
      const before = version.get()?.data_version;
      expect(await monitors.claimWebhooks("idle", Date.now(), 60_000, 8)).toEqual([]);
      peerDb.run("ROLLBACK");
      expect(version.get()?.data_version).toBe(before);
    } finally {
      close();
    }
  });
});
