// The IdempotencyRecords conformance suite (@social/conformance) on PostgreSQL, on a real server of this
// test file's own, a fresh database per test.
import { afterAll, beforeAll } from "bun:test";
import { type IdempotencyFixture, idempotencyConformance } from "@social/conformance";
import { PostgresAccounts } from "../src/accounts/postgres-accounts.ts";
import { PostgresIdempotency } from "../src/ledger/postgres-idempotency.ts";
import { PostgresLedger } from "../src/ledger/postgres-ledger.ts";
import { type PostgresServer, startPostgres } from "../testing/pg-server.ts";
import { twoPostgresPools } from "./two-pools.ts";

let server: PostgresServer;

beforeAll(async () => {
  server = await startPostgres();
});

afterAll(() => server.stop());

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

idempotencyConformance("PostgreSQL", openPostgresFixture);
