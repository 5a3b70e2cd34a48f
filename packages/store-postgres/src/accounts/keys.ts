// API keys, as on SQLite (packages/store-sqlite/src/ledger/keys.ts): the secret is shown once, at
// creation; the database keeps only its SHA-256 digest (what the ledger looks keys up by) and its first
// characters (so people can tell their keys apart).
import { createHash } from "node:crypto";

/** The same digest as core's async `hashApiKey`, without a round trip through WebCrypto. */
export function keyDigest(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}
