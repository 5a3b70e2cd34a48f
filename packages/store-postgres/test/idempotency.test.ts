// The IdempotencyRecords conformance suite on both adapters: SQLite, the embedded default, and
// PostgreSQL on a real server of this test file's own, a fresh database per test.
import { afterAll, beforeAll } from "bun:test";
import { SqliteAccounts, SqliteIdempotency, SqliteLedger } from "@social/store-sqlite";
import { PostgresAccounts } from "../src/accounts/postgres-accounts.ts";
import { PostgresIdempotency } from "../src/ledger/postgres-idempotency.ts";
import { PostgresLedger } from "../src/ledger/postgres-ledger.ts";
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
  const { account, key } = await new SqliteAccounts(db).openAccount("Ada", 1_000);
  return {
    records: new SqliteIdempotency(db),
    peer: new SqliteIdempotency(peerDb),
    accountId: account.id,
    keyId: key.keyId,
    ledger: new SqliteLedger(db),
    peerLedger: new SqliteLedger(peerDb),
    count: async () => db.query<{ n: number }, []>("SELECT count(*) AS n FROM idempotency").get()?.n ?? -1,
    close: async () => close(),
  };
}

async function openPostgresFixture(): Promise<IdempotencyFixture> {
  const { sql, peerSql, close } = await twoPostgresPools(server, "idempotency");
  const { account, key } = await new PostgresAccounts(sql).openAccount("Ada", 1_000);
  return {
    records: new PostgresIdempotency(sql),
    peer: new PostgresIdempotency(peerSql),
    accountId: account.id,
    keyId: key.keyId,
    ledger: new PostgresLedger(sql),
    peerLedger: new PostgresLedger(peerSql),
    async count() {
      const [row] = await sql<{ n: string }[]>`SELECT count(*) AS n FROM idempotency`;
      return Number(row?.n ?? -1);
    },
    close,
  };
}

idempotencyConformance("SQLite", openSqlite);
idempotencyConformance("PostgreSQL", openPostgresFixture);
