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

export function requestTarget(url: string): RequestTarget {
  const [path, query] = split(url);
  return { path, query: new URLSearchParams(query) };
}
