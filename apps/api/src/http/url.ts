// The path and query string of a request, cut straight out of `request.url` (always absolute on a
// server): on a cached lookup a full URL parse costs more than routing, and the router has already
// matched the path.
export interface RequestTarget {
  /** As sent, still percent-encoded. */
  path: string;
  query: URLSearchParams;
}

function split(url: string): [path: string, query: string] {
  const start = url.indexOf("/", url.indexOf("://") + 3);
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
