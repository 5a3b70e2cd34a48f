// The Monitors conformance suite (@social/conformance) on SQLite: a fresh database file per test, reached
// through two connections as two processes would.
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
