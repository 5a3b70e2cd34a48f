// The ledger conformance suite's fixture on PostgreSQL. Setup goes through a few plain statements that
// keep the invariant the suite relies on (every credit added is a grant row).
import { createHash, randomBytes } from "node:crypto";
import type { Books, LedgerFixture } from "@social/conformance";
import type { KeyOptions } from "@social/core";
import { SQL } from "bun";
import { openPostgres } from "../src/database.ts";
import { ACCOUNT_BALANCE } from "../src/ledger/credit-shards.ts";
import { PostgresLedger } from "../src/ledger/postgres-ledger.ts";
import type { PostgresServer } from "../testing/pg-server.ts";

let databases = 0;

/** A fresh database on `server` per fixture, so tests never see each other's accounts. */
export async function openPostgresFixture(server: PostgresServer): Promise<LedgerFixture & { sql: SQL; url: string }> {
  const url = await server.createDatabase(`ledger_${process.pid}_${++databases}`);
  const sql = await openPostgres(url, { max: 8 });
  const observer = new SQL(url, { max: 2 });
  const peers: SQL[] = [];
  return {
    sql,
    url,
    ledger: new PostgresLedger(sql),
    async openPeer() {
      // A second process has a pool of its own: nothing is shared with the first ledger but the server.
      const peerSql = await openPostgres(url, { max: 8 });
      peers.push(peerSql);
      return { ledger: new PostgresLedger(peerSql), close: () => peerSql.close() };
    },
    createAccount: (credits) => createPostgresAccount(sql, credits),
    createKey: (accountId, options) => createPostgresKey(sql, accountId, options),
    ledgerAt: (now) => new PostgresLedger(sql, { now }),
    async grant(accountId, credits) {
      await sql.begin(async (tx) => {
        await tx`UPDATE accounts SET balance = balance + ${credits} WHERE id = ${accountId}`;
        await tx`INSERT INTO grants (account_id, credits, reason, created_at)
                 VALUES (${accountId}, ${credits}, 'operator grant', ${Date.now()})`;
      });
    },
    async revokeKey(keyId) {
      await sql`UPDATE api_keys SET revoked_at = ${Date.now()} WHERE id = ${keyId}`;
    },
    books: (accountId) => postgresBooks(observer, accountId),
    async charged(requestId) {
      const rows = await observer`SELECT 1 FROM usage WHERE request_id = ${requestId}`;
      return rows.length > 0;
    },
    async lastUsedAt(keyId) {
      const [row] = await observer<
        { at: string | null }[]
      >`SELECT last_used_at AS at FROM api_key_totals WHERE id = ${keyId}`;
      return row?.at == null ? null : Number(row.at);
    },
    // Each process charges from a credit shard of its own: the others' charges made meanwhile are not
    // in a charge's remaining yet (src/ledger/credit-shards.ts).
    crossProcessRemaining: "as read",
    async close() {
      await Promise.all([sql.close(), observer.close(), ...peers.map((peer) => peer.close())]);
    },
  };
}

const randomId = (kind: string) => `${kind}_${randomBytes(12).toString("hex")}`;

export async function createPostgresAccount(sql: SQL, credits: number): Promise<string> {
  const id = randomId("acct");
  await sql.begin(async (tx) => {
    await tx`INSERT INTO accounts (id, name, balance, created_at) VALUES (${id}, 'Ada', ${credits}, ${Date.now()})`;
    if (credits > 0) {
      await tx`INSERT INTO grants (account_id, credits, reason, created_at)
               VALUES (${id}, ${credits}, 'starting credits', ${Date.now()})`;
    }
  });
  return id;
}

export async function createPostgresKey(
  sql: SQL,
  accountId: string,
  options: KeyOptions = {},
): Promise<{ keyId: string; keyHash: string }> {
  const key = `sk_live_${randomBytes(16).toString("hex")}`;
  const keyId = randomId("key");
  const keyHash = createHash("sha256").update(key).digest("hex");
  await sql`INSERT INTO api_keys (id, account_id, name, prefix, hash, created_at, credit_limit, limit_per, expires_at)
            VALUES (${keyId}, ${accountId}, 'test', ${key.slice(0, 12)}, ${keyHash}, ${Date.now()},
                    ${options.limit?.credits ?? null}, ${options.limit?.per ?? null}, ${options.expiresAt ?? null})`;
  return { keyId, keyHash };
}

async function postgresBooks(sql: SQL, accountId: string): Promise<Books> {
  const [row] = await sql<{ balance: string; grants: string; usage_rows: string; usage_credits: string }[]>`
    SELECT ${sql.unsafe(ACCOUNT_BALANCE)} AS balance,
      (SELECT coalesce(sum(credits), 0) FROM grants WHERE account_id = a.id) AS grants,
      (SELECT count(*) FROM usage WHERE account_id = a.id) AS usage_rows,
      (SELECT coalesce(sum(credits), 0) FROM usage WHERE account_id = a.id) AS usage_credits
    FROM accounts a WHERE a.id = ${accountId}`;
  const refunds = await sql<{ refundOf: string; credits: string }[]>`
    SELECT refund_of AS "refundOf", credits FROM grants WHERE account_id = ${accountId} AND refund_of IS NOT NULL ORDER BY id`;
  return {
    balance: row ? Number(row.balance) : -1,
    grants: Number(row?.grants ?? 0),
    usageRows: Number(row?.usage_rows ?? 0),
    usageCredits: Number(row?.usage_credits ?? 0),
    refunds: refunds.map((refund) => ({ refundOf: refund.refundOf, credits: Number(refund.credits) })),
  };
}
