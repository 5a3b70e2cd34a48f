// The IdempotencyRecords conformance suite on both adapters: SQLite, the embedded default, and
// PostgreSQL on a real server of this test file's own, a fresh database per test.
import { afterAll, beforeAll } from "bun:test";
import { SqliteAccounts, SqliteIdempotency } from "@social/store-sqlite";
import { PostgresAccounts } from "../src/accounts/postgres-accounts.ts";
import { PostgresIdempotency } from "../src/ledger/postgres-idempotency.ts";
import { type PostgresServer, startPostgres } from "../testing/pg-server.ts";
import { type IdempotencyFixture, idempotencyConformance } from "./conformance/idempotency.ts";
import { twoPostgresPools, twoSqliteConnections } from "./conformance/two-processes.ts";

let server: PostgresServer;

beforeAll(async () => {
  server = await startPostgres();
});

afterAll(() => server.stop());

async function openSqlite(): Promise<IdempotencyFixture> {
  const { db, peerDb, close } = await twoSqliteConnections("idempotency");
  return {
    records: new SqliteIdempotency(db),
    peer: new SqliteIdempotency(peerDb),
    accountId: (await new SqliteAccounts(db).openAccount("Ada")).account.id,
    count: async () => db.query<{ n: number }, []>("SELECT count(*) AS n FROM idempotency").get()?.n ?? -1,
    close: async () => close(),
  };
}

async function openPostgresFixture(): Promise<IdempotencyFixture> {
  const { sql, peerSql, close } = await twoPostgresPools(server, "idempotency");
  return {
    records: new PostgresIdempotency(sql),
    peer: new PostgresIdempotency(peerSql),
    accountId: (await new PostgresAccounts(sql).openAccount("Ada")).account.id,
    async count() {
      const [row] = await sql<{ n: string }[]>`SELECT count(*) AS n FROM idempotency`;
      return Number(row?.n ?? -1);
    },
    close,
  };
}

idempotencyConformance("SQLite", openSqlite);
idempotencyConformance("PostgreSQL", openPostgresFixture);
