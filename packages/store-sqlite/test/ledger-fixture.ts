// The ledger conformance suite's fixture on SQLite: setup through the adapter's own account functions,
// checks through a connection of their own.
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Books, LedgerFixture } from "@social/conformance";
import {
  closeDatabase,
  createAccount,
  createKey,
  grantCredits,
  hashApiKeySync,
  openDatabase,
  revokeKey,
  SqliteLedger,
} from "../src/index.ts";

/**
 * `serving`: the ledger's connection is a server's (durability/serving.ts in store-sqlite): its group
 * commits are synced on another thread, and a checkpointer thread keeps its WAL.
 */
export function openSqliteFixture(options: { serving?: boolean } = {}): Promise<LedgerFixture> {
  const dir = mkdtempSync(join(tmpdir(), "ledger-conformance-"));
  const url = `file:${join(dir, "social.db")}`;
  const db = openDatabase(url, { serving: options.serving === true });
  // Reads go through a connection of their own, so they see only what the ledger committed.
  const observer = openDatabase(url);
  return Promise.resolve({
    ledger: new SqliteLedger(db),
    async openPeer() {
      const peerDb = openDatabase(url);
      return { ledger: new SqliteLedger(peerDb), close: async () => peerDb.close() };
    },
    createAccount: async (credits) => createAccount(db, "Ada", credits).id,
    async createKey(accountId, options) {
      const { key, keyId } = createKey(db, accountId, "test", options);
      return { keyId, keyHash: hashApiKeySync(key) };
    },
    ledgerAt: (now) => new SqliteLedger(db, { now }),
    grant: async (accountId, credits) => void grantCredits(db, accountId, credits),
    revokeKey: async (keyId) => void revokeKey(db, keyId),
    books: async (accountId) => sqliteBooks(observer, accountId),
    charged: async (requestId) => observer.query("SELECT 1 FROM usage WHERE request_id = ?").get(requestId) !== null,
    lastUsedAt: async (keyId) =>
      observer.query<{ at: number | null }, [string]>("SELECT last_used_at AS at FROM api_keys WHERE id = ?").get(keyId)
        ?.at ?? null,
    // One writer at a time: a charge's remaining is the balance right after it.
    crossProcessRemaining: "exact",
    async close() {
      observer.close();
      await closeDatabase(db);
      rmSync(dir, { recursive: true, force: true });
    },
  });
}

function sqliteBooks(db: Database, accountId: string): Books {
  const one = <Row>(query: string) => db.query<Row, [string]>(query).get(accountId);
  return {
    balance: one<{ balance: number }>("SELECT balance FROM accounts WHERE id = ?")?.balance ?? -1,
    grants:
      one<{ total: number }>("SELECT coalesce(sum(credits), 0) AS total FROM grants WHERE account_id = ?")?.total ?? 0,
    usageRows: one<{ n: number }>("SELECT count(*) AS n FROM usage WHERE account_id = ?")?.n ?? 0,
    usageCredits:
      one<{ total: number }>("SELECT coalesce(sum(credits), 0) AS total FROM usage WHERE account_id = ?")?.total ?? 0,
    refunds: db
      .query<{ refundOf: string; credits: number }, [string]>(
        "SELECT refund_of AS refundOf, credits FROM grants WHERE account_id = ? AND refund_of IS NOT NULL ORDER BY id",
      )
      .all(accountId),
  };
}
