// Opaque pagination tokens: the keyset cursor, signed with HMAC-SHA-256 over the endpoint
// and a digest of its normalized query, so a token is useless on another endpoint, with other filters,
// or after any change to a single character. The query's digest travels in the token, so a genuine
// token sent with changed arguments is told apart from a broken one, and the caller told which it is.
// Format: base64url(JSON cursor) "." base64url(query digest) "." base64url(MAC).

import { changedPageArguments, invalidPageToken } from "./errors.ts";
import type { Cursor } from "./ports/store.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const MAX_TOKEN_LENGTH = 512;

function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** Strict: only the canonical encoding of some bytes is accepted, so no two strings mean one token. */
function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined;
  const padded = text.replaceAll("-", "+").replaceAll("_", "/") + "=".repeat((4 - (text.length % 4)) % 4);
  const bytes = Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  return toBase64Url(bytes) === text ? bytes : undefined;
}

function isCursor(value: unknown): value is Cursor {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.length <= 4 &&
    value.every((part) => typeof part === "string" || (typeof part === "number" && Number.isFinite(part)))
  );
}

/** HMAC-SHA-256 under one key. */
export type Hmac = (data: Uint8Array<ArrayBuffer>) => Uint8Array | Promise<Uint8Array>;
/** Makes the HMAC of a key; a runtime may offer a faster one than WebCrypto (see createServices). */
export type HmacFactory = (key: Uint8Array<ArrayBuffer>) => Promise<Hmac>;

/** WebCrypto's: on every runtime, but asynchronous, and on Bun several times the cost of a native one. */
export const webCryptoHmac: HmacFactory = async (secret) => {
  const key = await crypto.subtle.importKey("raw", secret, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return async (data) => new Uint8Array(await crypto.subtle.sign("HMAC", key, data));
};

/** Compares two MACs in time that depends on their length only, never on where they differ. */
function sameMac(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= (a[i] as number) ^ (b[i] as number);
  return difference === 0;
}

export interface TokenCodec {
  sign(scope: string, query: string, cursor: Cursor): Promise<string>;
  /** The cursor inside a token made by `sign` for the same scope and query; otherwise invalid_request. */
  verify(token: string, scope: string, query: string): Promise<Cursor>;
}

/** Bytes of a query's HMAC kept in a token: enough that no other query shares them by chance. */
const QUERY_DIGEST_BYTES = 9;

export async function createTokenCodec(secret: string, hmacOf: HmacFactory = webCryptoHmac): Promise<TokenCodec> {
  if (secret.length < 32) throw new Error("the pagination token secret must be at least 32 characters");
  const hmac = await hmacOf(encoder.encode(secret));
  const queryDigest = async (query: string) =>
    toBase64Url((await hmac(encoder.encode(`query\n${query}`))).subarray(0, QUERY_DIGEST_BYTES));
  const signed = (scope: string, digest: string, payload: string) => encoder.encode(`${scope}\n${digest}\n${payload}`);
  const invalid = invalidPageToken;

  return {
    async sign(scope, query, cursor) {
      const payload = toBase64Url(encoder.encode(JSON.stringify(cursor)));
      const digest = await queryDigest(query);
      const mac = await hmac(signed(scope, digest, payload));
      return `${payload}.${digest}.${toBase64Url(mac)}`;
    },
    async verify(token, scope, query) {
      if (token.length > MAX_TOKEN_LENGTH) throw invalid();
      const [payload, digest, macText, ...rest] = token.split(".");
      if (payload === undefined || digest === undefined || macText === undefined || rest.length > 0) throw invalid();
      const mac = fromBase64Url(macText);
      const body = fromBase64Url(payload);
      if (!mac || !body || !fromBase64Url(digest)) throw invalid();
      if (!sameMac(mac, await hmac(signed(scope, digest, payload)))) throw invalid();
      // The MAC covers the digest, so a digest that differs now was this server's, for other arguments.
      if (digest !== (await queryDigest(query))) throw changedPageArguments();
      let cursor: unknown;
      try {
        cursor = JSON.parse(decoder.decode(body));
      } catch {
        throw invalid();
      }
      if (!isCursor(cursor)) throw invalid();
      return cursor;
    },
  };
}
