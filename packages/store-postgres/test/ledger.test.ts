// The Ledger conformance suite on both adapters: SQLite, the embedded default (as a command's connection
// and as a server's), and PostgreSQL on a real server of this test file's own.
import { afterAll, beforeAll } from "bun:test";
import { type PostgresServer, startPostgres } from "../testing/pg-server.ts";
import { ledgerConformance } from "./conformance/ledger.ts";
import { openPostgresFixture, openSqliteFixture } from "./conformance/ledger-fixtures.ts";

let server: PostgresServer;

beforeAll(async () => {
  server = await startPostgres();
});

afterAll(() => server.stop());

ledgerConformance("SQLite", openSqliteFixture);
ledgerConformance("SQLite, serving (checkpoints and fsyncs on other threads)", () =>
  openSqliteFixture({ serving: true }),
);
ledgerConformance("PostgreSQL", () => openPostgresFixture(server));
