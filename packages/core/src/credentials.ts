// Random identifiers and API keys from the platform CSPRNG, the same whichever adapter stores them, so
// ids and keys look alike whichever database made them.
import { API_KEY_PATTERN } from "./request.ts";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
// 248 = 4 × 62: bytes at or above it are dropped so that every character is equally likely.
const UNBIASED_LIMIT = 248;
const KEY_TAG = "sk_live_";
/** The tag plus four random characters: enough to recognise a key, far too little to guess it. */
export const KEY_PREFIX_LENGTH = 12;

export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length))) {
      if (byte < UNBIASED_LIMIT && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** `acct_…`, `key_…`: the prefix tells an operator what kind of id they are looking at. */
export function newId(kind: "acct" | "key"): string {
  return `${kind}_${randomBase62(16)}`;
}

/** A new secret key, in the shape API_KEY_PATTERN accepts. */
export function generateApiKey(): string {
  const key = KEY_TAG + randomBase62(32);
  if (!API_KEY_PATTERN.test(key)) throw new Error("a generated key does not match API_KEY_PATTERN");
  return key;
}
