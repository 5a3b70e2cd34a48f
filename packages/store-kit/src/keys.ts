// How every adapter stores an API key: only its SHA-256 digest, the value Ledger.checkKey looks it up by.
import { createHash, timingSafeEqual } from "node:crypto";
import type { KeyCheck } from "@social/core";

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * The same digest as core's async `hashApiKey`, computed synchronously so key creation and revocation
 * fit inside one transaction.
 */
export function hashApiKeySync(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** What the key lookup by digest returns; `Int` is how the database hands out a BIGINT. */
export interface KeyRowOf<Int> {
  id: string;
  account_id: string;
  hash: string;
  revoked_at: Int | null;
  balance: Int;
}

/** A digest no stored key can have: checkKey answers unknown without asking the database. */
export function isKeyDigest(keyHash: string): boolean {
  return SHA256_HEX.test(keyHash);
}

/** Ledger.checkKey's answer for the row found by `keyHash` (or none). */
export function keyCheckOf(row: KeyRowOf<number | string> | undefined | null, keyHash: string): KeyCheck {
  // The lookup already matched the digest; comparing it again, in constant time, keeps the answer
  // independent of how the index compares and adds no timing signal of its own.
  if (!row || !timingSafeEqual(Buffer.from(row.hash, "hex"), Buffer.from(keyHash, "hex"))) {
    return { status: "unknown" };
  }
  if (row.revoked_at !== null) return { status: "revoked", keyId: row.id };
  return { status: "active", accountId: row.account_id, keyId: row.id, balance: Number(row.balance) };
}
