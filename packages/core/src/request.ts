// What every surface reads off an incoming request the same way: the caller's key and a request id.

/** What every API key looks like: the tag and 32 base62 characters (see the ledger's key generator). */
export const API_KEY_PATTERN = /^sk_live_[0-9A-Za-z]{32}$/;

export function isWellFormedApiKey(text: string): boolean {
  return API_KEY_PATTERN.test(text);
}

/** The API key of an `Authorization: Bearer <key>` header; anything else counts as no key. */
export function bearerKey(request: Request): string | undefined {
  return request.headers.get("authorization")?.match(/^Bearer[ ]+(\S+)[ ]*$/i)?.[1];
}

/**
 * `req_` and a UUIDv7 (RFC 9562) in 32 hex digits: the leading 48 bits are the time in ms, the rest
 * random. Time order matters to the ledger: every charge inserts its request id into a unique index,
 * and ids that grow with time land on the index's last page, where random ids would dirty (and write
 * to the WAL) one random page of a large index per charge. Sorting by id also sorts by time.
 */
export function newRequestId(now: number = Date.now()): string {
  // A v4 UUID supplies the random bits and already carries the RFC variant in its 17th digit.
  const random = crypto.randomUUID();
  return `req_${now.toString(16).padStart(12, "0")}7${random.slice(15, 18)}${random.slice(19, 23)}${random.slice(24)}`;
}

// The path and query string of a request, cut straight out of `request.url`: on a cached lookup a full
// URL parse costs more than routing, and the router has already matched the path. Never `new URL()`:
// Bun builds `http://<Host header>/…` from any Host it can place there (`x:y`, `[::1`), which URL
// refuses, and leaves the target as sent when it cannot (`/p?q` for `Host: a b`, `1:1` for CONNECT).
export interface RequestTarget {
  /** As sent, still percent-encoded. */
  path: string;
  query: URLSearchParams;
}

/** Where the target starts: after the scheme and host of an absolute URL, else at the beginning. */
function targetStart(url: string): number {
  const scheme = url.startsWith("/") ? -1 : url.indexOf("://");
  return scheme === -1 ? 0 : url.indexOf("/", scheme + 3);
}

function split(url: string): [path: string, query: string] {
  const start = targetStart(url);
  if (start === -1) return ["/", ""];
  const queryStart = url.indexOf("?", start);
  return queryStart === -1 ? [url.slice(start), ""] : [url.slice(start, queryStart), url.slice(queryStart + 1)];
}

export function requestPath(url: string): string {
  return split(url)[0];
}

/** The query as sent, with its `?`; empty when there is none. */
export function requestSearch(url: string): string {
  const query = split(url)[1];
  return query === "" ? "" : `?${query}`;
}

export function requestTarget(url: string): RequestTarget {
  const [path, query] = split(url);
  return { path, query: new URLSearchParams(query) };
}
