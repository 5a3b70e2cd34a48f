// Who is asking: the API key's digest (cached), its check against the ledger, and the 401 of a key that
// cannot be used now. Made-up keys are turned away before any work is spent on them.
import { ApiError } from "../errors.ts";
import type { KeyCheck, Ledger } from "../ports/ledger.ts";
import { isWellFormedApiKey } from "../request.ts";

const encoder = new TextEncoder();

/**
 * Recently seen keys → their digests: a digest never changes, and it costs more than the rest of auth.
 * Only well-formed keys (40 characters) reach it, so its 10,000 entries hold at most about 2 MB.
 */
const digestCache = new Map<string, string>();
const DIGEST_CACHE_SIZE = 10_000;

export async function hashApiKey(apiKey: string): Promise<string> {
  const cached = digestCache.get(apiKey);
  if (cached) return cached;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(apiKey)));
  const hex = Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
  // Bounded, so a flood of made-up keys cannot grow it; it simply starts over.
  if (digestCache.size >= DIGEST_CACHE_SIZE) digestCache.clear();
  digestCache.set(apiKey, hex);
  return hex;
}

export function revokedKey(): ApiError {
  return new ApiError("revoked_api_key", "This API key has been revoked: create a new one in the dashboard");
}

export function expiredKey(expiresAt: number): ApiError {
  const when = new Date(expiresAt).toISOString();
  return new ApiError("invalid_api_key", `This API key expired at ${when}: create a new one in the dashboard`);
}

/** The 401 of a key that cannot be used now (unknown, revoked or expired); none for a usable one. */
export function refusedKey(check: Exclude<KeyCheck, { status: "active" }>): ApiError;
export function refusedKey(check: KeyCheck): ApiError | undefined;
export function refusedKey(check: KeyCheck): ApiError | undefined {
  switch (check.status) {
    case "unknown":
      return new ApiError("invalid_api_key", "Invalid API key");
    case "revoked":
      return revokedKey();
    case "active":
      // The clock decides, not the check: a check kept in memory does not know the time has come.
      return check.expiresAt !== undefined && check.expiresAt <= Date.now() ? expiredKey(check.expiresAt) : undefined;
  }
}

/** The active key of a request, or the 401 that refuses it. */
export async function authenticate(ledger: Ledger, apiKey: string | undefined) {
  if (!apiKey)
    throw new ApiError("invalid_api_key", "Missing API key: send the header Authorization: Bearer <API_KEY>");
  // Refused before hashing or caching: a made-up token of any length costs nothing to turn away.
  if (!isWellFormedApiKey(apiKey)) {
    throw new ApiError("invalid_api_key", "Invalid API key: keys are sk_live_ followed by 32 letters and digits");
  }
  const check = await ledger.checkKey(await hashApiKey(apiKey));
  if (check.status !== "active") throw refusedKey(check);
  const expired = refusedKey(check);
  if (expired) throw expired;
  return check;
}
