// How every adapter stores an API key: only its SHA-256 digest, the value Ledger.checkKey looks it up by.
import { createHash } from "node:crypto";

/**
 * The same digest as core's async `hashApiKey`, computed synchronously so key creation and revocation
 * fit inside one transaction.
 */
export function hashApiKeySync(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}
