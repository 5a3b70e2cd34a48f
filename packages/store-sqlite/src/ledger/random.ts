// Random identifiers and secrets from the platform CSPRNG.
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
// 248 = 4 × 62: bytes at or above it are dropped so that every character is equally likely.
const UNBIASED_LIMIT = 248;

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
