// The Accounts conformance suite (@social/conformance) on SQLite: a fresh database file per test, reached
// through two connections as two processes would.
import { randomUUID } from "node:crypto";
import { type AccountsFixture, accountsConformance } from "@social/conformance";
import { hashApiKeySync, SqliteAccounts, SqliteLedger, SqliteRequestLog } from "../src/index.ts";
import { twoSqliteConnections } from "./two-connections.ts";

async function openSqlite(): Promise<AccountsFixture> {
  const { db, peerDb, close } = await twoSqliteConnections("accounts");
  return {
    accounts: new SqliteAccounts(db),
    peer: new SqliteAccounts(peerDb),
    ledger: (now) => new SqliteLedger(db, { now }),
    requestLog: () => new SqliteRequestLog(db),
    grants: async (accountId) =>
      db
        .query<{ credits: number; reason: string }, [string]>(
          "SELECT credits, reason FROM grants WHERE account_id = ? ORDER BY id",
        )
        .all(accountId),
    storedKeys: async () => JSON.stringify(db.query("SELECT * FROM api_keys").all()),
    async insertKeyWithPrefix(accountId, prefix) {
      db.run("INSERT INTO api_keys (id, account_id, name, prefix, hash, created_at) VALUES (?, ?, 'twin', ?, ?, 0)", [
        `key_${randomUUID()}`,
        accountId,
        prefix,
        hashApiKeySync(randomUUID()),
      ]);
    },
    close: async () => close(),
  };
}

accountsConformance("SQLite", openSqlite);
