// API keys. The secret is shown once, at creation; the database keeps only its SHA-256 digest (to find
// the key on each request) and its first characters (so people can tell their keys apart).
import type { Database } from "bun:sqlite";
import {
  assertKeyOptions,
  generateApiKey,
  isWellFormedApiKey,
  KEY_PREFIX_LENGTH,
  type KeyChanges,
  type KeyInfo,
  type KeyOptions,
  LedgerError,
  MAX_ACTIVE_KEYS_PER_ACCOUNT,
  type NewKey,
  newId,
} from "@social/core";
import { hashApiKeySync, KEY_INFO_COLUMNS, type KeyInfoRowOf, keyInfoOf } from "@social/store-common";

type KeyRow = KeyInfoRowOf<number>;

function assertRoomForKey(db: Database, accountId: string): void {
  const accountExists = db.query<{ found: 1 }, [string]>("SELECT 1 AS found FROM accounts WHERE id = ?").get(accountId);
  if (!accountExists) throw new LedgerError("unknown_account", `no account ${accountId}`);
  const active =
    db
      .query<{ active: number }, [string]>(
        "SELECT count(*) AS active FROM api_keys WHERE account_id = ? AND revoked_at IS NULL",
      )
      .get(accountId)?.active ?? 0;
  if (active >= MAX_ACTIVE_KEYS_PER_ACCOUNT) {
    throw new LedgerError(
      "too_many_keys",
      `account ${accountId} already has ${active} active keys, the most allowed: revoke one before creating another`,
    );
  }
}

/**
 * Creates a key for an existing account that has room for one more. `key` is the only copy of the
 * secret. Counting and inserting share one write transaction, so two concurrent creations cannot both
 * take the last place.
 */
export function createKey(db: Database, accountId: string, name: string, options: KeyOptions = {}): NewKey {
  assertKeyOptions(options);
  return db
    .transaction(() => {
      assertRoomForKey(db, accountId);
      const key = generateApiKey();
      const keyId = newId("key");
      const prefix = key.slice(0, KEY_PREFIX_LENGTH);
      db.query<void, [string, string, string, string, string, number, number | null, string | null, number | null]>(
        "INSERT INTO api_keys (id, account_id, name, prefix, hash, created_at, credit_limit, limit_per, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      ).run(
        keyId,
        accountId,
        name,
        prefix,
        hashApiKeySync(key),
        Date.now(),
        options.limit?.credits ?? null,
        options.limit?.per ?? null,
        options.expiresAt ?? null,
      );
      return { key, keyId, prefix };
    })
    .immediate();
}

/** The id of the key that `reference` names: the full key, its id (`key_…`) or its displayed prefix. */
function resolveKeyId(db: Database, reference: string): string {
  let rows: { id: string }[];
  if (isWellFormedApiKey(reference)) {
    rows = db.query<{ id: string }, [string]>("SELECT id FROM api_keys WHERE hash = ?").all(hashApiKeySync(reference));
  } else if (reference.startsWith("key_")) {
    rows = db.query<{ id: string }, [string]>("SELECT id FROM api_keys WHERE id = ?").all(reference);
  } else {
    rows = db.query<{ id: string }, [string]>("SELECT id FROM api_keys WHERE prefix = ?").all(reference);
  }
  const [first, ...others] = rows;
  if (!first) throw new LedgerError("unknown_key", `no key matches ${reference}`);
  if (others.length > 0) {
    throw new LedgerError("ambiguous_key", `${rows.length} keys share the prefix ${reference}; use the key id`);
  }
  return first.id;
}

/** Revokes the key for good. Revoking a revoked key keeps its original revocation time. */
export function revokeKey(db: Database, reference: string): KeyInfo {
  const keyId = resolveKeyId(db, reference);
  const row = db
    .query<KeyRow, [number, string]>(
      `UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ? RETURNING ${KEY_INFO_COLUMNS}`,
    )
    .get(Date.now(), keyId);
  if (!row) throw new LedgerError("unknown_key", `no key matches ${reference}`);
  return keyInfoOf(row, Date.now());
}

/** Changes an active key's name, limit and expiry; its spend stays. */
export function updateKey(db: Database, keyId: string, changes: KeyChanges): KeyInfo {
  assertKeyOptions(changes);
  const row = db
    .query<KeyRow, [string, number | null, string | null, number | null, string]>(
      `UPDATE api_keys SET name = ?, credit_limit = ?, limit_per = ?, expires_at = ?
       WHERE id = ? AND revoked_at IS NULL RETURNING ${KEY_INFO_COLUMNS}`,
    )
    .get(changes.name, changes.limit?.credits ?? null, changes.limit?.per ?? null, changes.expiresAt ?? null, keyId);
  if (row) return keyInfoOf(row, Date.now());
  throw keyInfo(db, keyId)
    ? new LedgerError("revoked_key", `the key ${keyId} is revoked and cannot be changed`)
    : new LedgerError("unknown_key", `no key ${keyId}`);
}

/** One key, revoked or not. */
export function keyInfo(db: Database, keyId: string): KeyInfo | undefined {
  const row = db.query<KeyRow, [string]>(`SELECT ${KEY_INFO_COLUMNS} FROM api_keys WHERE id = ?`).get(keyId);
  return row ? keyInfoOf(row, Date.now()) : undefined;
}

/** Keys of one account, or of every account, oldest first. */
export function listKeys(db: Database, accountId?: string): KeyInfo[] {
  const rows =
    accountId === undefined
      ? db.query<KeyRow, []>(`SELECT ${KEY_INFO_COLUMNS} FROM api_keys ORDER BY created_at, rowid`).all()
      : db
          .query<KeyRow, [string]>(
            `SELECT ${KEY_INFO_COLUMNS} FROM api_keys WHERE account_id = ? ORDER BY created_at, rowid`,
          )
          .all(accountId);
  const now = Date.now();
  return rows.map((row) => keyInfoOf(row, now));
}

export { hashApiKeySync };
