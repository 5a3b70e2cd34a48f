// The Ledger conformance suite (@social/conformance) on PostgreSQL, on a real server of this test file's
// own, a fresh database per test.
import { afterAll, beforeAll } from "bun:test";
import { ledgerConformance } from "@social/conformance";
import { type PostgresServer, startPostgres } from "../testing/pg-server.ts";
import { openPostgresFixture } from "./ledger-fixture.ts";

let server: PostgresServer;

beforeAll(async () => {
  server = await startPostgres();
});

afterAll(() => server.stop());

ledgerConformance("PostgreSQL", () => openPostgresFixture(server));
