// The key check that opens a connection. Tool calls authenticate again inside executeRead (a key can
// be revoked mid-session); this check exists so that a connection with a bad key fails at once
// instead of listing tools that could never be called.
import { ApiError, hashApiKey, isWellFormedApiKey, type KeyCheck, type Ledger, refusedKey } from "@social/core";

/** An active key and its id, which its rate-limit bucket is counted under. */
export interface ConnectionKey {
  apiKey: string;
  keyId: string;
}

/** The key when it is active, else the 401 error; `howToSend` completes the message. */
export async function checkConnectionKey(
  ledger: Ledger,
  apiKey: string | undefined,
  howToSend: string,
): Promise<ConnectionKey | ApiError> {
  if (!apiKey) return new ApiError("invalid_api_key", `Missing API key: ${howToSend}`);
  // Like the pipeline, a token not shaped like a key is turned away before it is hashed or cached.
  const check: KeyCheck = isWellFormedApiKey(apiKey)
    ? await ledger.checkKey(await hashApiKey(apiKey))
    : { status: "unknown" };
  if (check.status === "unknown") return new ApiError("invalid_api_key", `Invalid API key: ${howToSend}`);
  return check.status === "active" ? (refusedKey(check) ?? { apiKey, keyId: check.keyId }) : refusedKey(check);
}
