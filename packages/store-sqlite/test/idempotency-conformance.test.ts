// The IdempotencyRecords conformance suite (@social/conformance) on SQLite: a fresh database file per
// test, reached through two connections as two processes would.
import { type IdempotencyFixture, idempotencyConformance } from "@social/conformance";
import { SqliteAccounts, SqliteIdempotency, SqliteLedger } from "../src/index.ts";
import { twoSqliteConnections } from "./two-connections.ts";

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

idempotencyConformance("SQLite", openSqlite);
