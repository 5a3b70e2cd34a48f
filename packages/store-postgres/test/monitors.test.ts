// The Monitors conformance suite (@social/conformance) on PostgreSQL, on a real server of this test
// file's own, a fresh database per test reached through two pools as two processes would.
import { afterAll, beforeAll } from "bun:test";
import { type MonitorsFixture, monitorsConformance } from "@social/conformance";
import { PostgresAccounts } from "../src/accounts/postgres-accounts.ts";
import { PostgresLedger } from "../src/ledger/postgres-ledger.ts";
import { PostgresMonitors } from "../src/monitors/postgres-monitors.ts";
import { PostgresWorldImport } from "../src/world/import.ts";
import { type PostgresServer, startPostgres } from "../testing/pg-server.ts";
import { twoPostgresPools } from "./two-pools.ts";

let server: PostgresServer;

beforeAll(async () => {
  server = await startPostgres();
});

afterAll(() => server.stop());

monitorsConformance("PostgreSQL", async (): Promise<MonitorsFixture> => {
  const { sql, peerSql, close } = await twoPostgresPools(server, "monitors");
  return {
    monitors: new PostgresMonitors(sql),
    peer: new PostgresMonitors(peerSql),
    accounts: new PostgresAccounts(sql),
    ledger: new PostgresLedger(sql),
    worldImport: new PostgresWorldImport(sql),
    close,
  };
});
