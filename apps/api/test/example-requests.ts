// Requests of catalogue entries as a client writes them, and the items SPEC.md's cost rules count in
// what it receives: shared by the suites that check what the server bills.
import { type Endpoint, pathParamNames } from "@social/core";

/** The entry's path with its path parameters filled in, the rest as its query. */
export function url(endpoint: Endpoint, params: Record<string, string | number>): string {
  let path = endpoint.path;
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (pathParamNames(endpoint.path).includes(name))
      path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
    else query.set(name, String(value));
  }
  const search = query.toString();
  return search ? `${path}?${search}` : path;
}

/**
 * The items SPEC.md's cost rules count, read from the body the client received: written out here rather
 * than taken from the catalogue's `counted`, which is what the server bills with and so cannot check it.
 */
export function countedItems(endpoint: Endpoint, data: unknown): number {
  if (Array.isArray(data)) return data.length;
  const shape = data as Record<string, unknown[]>;
  switch (endpoint.id) {
    case "tweet_thread":
    case "search_recent_enriched":
      return (shape.tweets ?? []).length;
    case "profile":
    case "profile_by_username":
      return (shape.recent_tweets ?? []).length;
    case "tweet_context":
      return (shape.quotes ?? []).length + (shape.retweeters ?? []).length;
    default:
      return 1;
  }
}
