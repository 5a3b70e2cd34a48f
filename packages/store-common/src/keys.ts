// How every adapter stores an API key: only its SHA-256 digest, the value Ledger.checkKey looks it up by.
import { createHash, timingSafeEqual } from "node:crypto";
import { allowanceOf, type KeyCheck, type KeyInfo } from "@social/core";
import { type KeySpendRowOf, keySpendOf } from "./key-spend.ts";

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * The same digest as core's async `hashApiKey`, computed synchronously so key creation and revocation
 * fit inside one transaction.
 */
export function hashApiKeySync(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** What the key lookup by digest returns; `Int` is how the database hands out a BIGINT. */
export interface KeyRowOf<Int> extends KeySpendRowOf<Int> {
  id: string;
  account_id: string;
  hash: string;
  revoked_at: Int | null;
  balance: Int;
}

/** The columns of api_keys a key check reads, beside the account's balance (both adapters' SQL). */
export const KEY_CHECK_COLUMNS =
  "k.id, k.account_id, k.hash, k.revoked_at, k.credit_limit, k.limit_per, k.expires_at, k.spent_total, k.spent_today, k.spent_day";

/** A digest no stored key can have: checkKey answers unknown without asking the database. */
export function isKeyDigest(keyHash: string): boolean {
  return SHA256_HEX.test(keyHash);
}

/** Ledger.checkKey's answer for the row found by `keyHash` (or none). */
export function keyCheckOf(row: KeyRowOf<number | string> | undefined | null, keyHash: string, now: number): KeyCheck {
  // The lookup already matched the digest; comparing it again, in constant time, keeps the answer
  // independent of how the index compares and adds no timing signal of its own.
  if (!row || !timingSafeEqual(Buffer.from(row.hash, "hex"), Buffer.from(keyHash, "hex"))) {
    return { status: "unknown" };
  }
  if (row.revoked_at !== null) return { status: "revoked", keyId: row.id };
  const allowance = allowanceOf(keySpendOf(row), now);
  return {
    status: "active",
    accountId: row.account_id,
    keyId: row.id,
    balance: Number(row.balance),
    ...(allowance ? { allowance } : {}),
    ...(row.expires_at === null ? {} : { expiresAt: Number(row.expires_at) }),
  };
}

/** The columns of api_keys a key listing reads (both adapters' SQL). */
export const KEY_INFO_COLUMNS =
  "id, account_id, name, prefix, created_at, revoked_at, last_used_at, credit_limit, limit_per, expires_at, spent_total, spent_today, spent_day";

/** A key listing's row; `Int` is how the database hands out a BIGINT. */
export interface KeyInfoRowOf<Int> extends KeySpendRowOf<Int> {
  id: string;
  account_id: string;
  name: string;
  prefix: string;
  created_at: Int;
  revoked_at: Int | null;
  last_used_at: Int | null;
}

const numberOrNull = (value: number | string | null) => (value === null ? null : Number(value));

/** A key as the dashboard, the CLI and /v1/account show it, its allowance as of `now`. */
export function keyInfoOf(row: KeyInfoRowOf<number | string>, now: number): KeyInfo {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    prefix: row.prefix,
    createdAt: Number(row.created_at),
    revokedAt: numberOrNull(row.revoked_at),
    lastUsedAt: numberOrNull(row.last_used_at),
    allowance: allowanceOf(keySpendOf(row), now),
    expiresAt: numberOrNull(row.expires_at),
  };
}
