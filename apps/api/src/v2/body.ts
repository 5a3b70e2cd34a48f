// Success bodies in X API v2's shape: `data` (never an empty array), `includes.users` for
// expansions=author_id, `meta` on paginated reads and `errors` for ids that were not found.
import type { Store, Tweet, User } from "@social/core";
import { v2Tweet, v2User } from "./fields.ts";
import type { RenderOptions } from "./query.ts";
import type { Resource, V2Route } from "./rules.ts";

type Json = Record<string, unknown>;

const NOT_FOUND_TYPE = "https://api.twitter.com/2/problems/resource-not-found";

/** One id (or username) that a lookup did not find, as an element of X API v2's `errors`. */
export function notFoundError(resource: Resource, parameter: string, value: string): Json {
  return {
    value,
    detail: `Could not find ${resource} with ${parameter}: [${value}].`,
    title: "Not Found Error",
    resource_type: resource,
    parameter,
    resource_id: value,
    type: NOT_FOUND_TYPE,
  };
}

function idRange(tweets: readonly Tweet[]): Json {
  if (tweets.length === 0) return {};
  const ids = tweets.map((tweet) => BigInt(tweet.id)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { newest_id: String(ids.at(-1)), oldest_id: String(ids[0]) };
}

/**
 * The authors that expansions=author_id puts in includes.users. It runs inside the read, before the
 * charge, so a failure here leaves the request uncharged like any other failed read.
 */
export async function expandedAuthors(store: Store, data: unknown, resource: Resource, options: RenderOptions) {
  if (!options.authors || resource !== "tweet") return [];
  const tweets = (Array.isArray(data) ? data : [data]) as Tweet[];
  return tweets.length === 0 ? [] : store.usersByIds([...new Set(tweets.map((tweet) => tweet.author_id))]);
}

function authorIncludes(authors: readonly User[], options: RenderOptions): Json {
  return authors.length > 0 ? { includes: { users: authors.map((user) => v2User(user, options.userFields)) } } : {};
}

function render(resource: Resource, items: readonly unknown[], options: RenderOptions): Json[] {
  return resource === "tweet"
    ? (items as Tweet[]).map((tweet) => v2Tweet(tweet, options.tweetFields))
    : (items as User[]).map((user) => v2User(user, options.userFields));
}

export interface ReadData {
  data: unknown;
  nextToken?: string;
  /** For lookups by ids: the ids asked for, so the missing ones can be reported. */
  requestedIds?: readonly string[];
  /** The authors of expansions=author_id, read before the charge. */
  authors: readonly User[];
}

export function successBody(route: V2Route, read: ReadData, options: RenderOptions): Json {
  const { resource } = route.rule;
  const items = Array.isArray(read.data) ? read.data : [read.data];
  const tweets = resource === "tweet" ? (items as Tweet[]) : [];
  const rendered = render(resource, items, options);
  const includes = authorIncludes(read.authors, options);
  const data = rendered.length === 0 ? {} : { data: Array.isArray(read.data) ? rendered : rendered[0] };
  if (route.rule.maxResults) {
    // A token on an empty page would send @xdevplatform/xdk round in circles, so it goes with data only.
    const next = read.nextToken && rendered.length > 0 ? { next_token: read.nextToken } : {};
    const range = route.rule.idRange ? idRange(tweets) : {};
    return { ...data, ...includes, meta: { result_count: rendered.length, ...range, ...next } };
  }
  const found = new Set(items.map((item) => (item as { id: string }).id));
  const missing = (read.requestedIds ?? []).filter((id) => !found.has(id));
  const errors = missing.length > 0 ? { errors: missing.map((id) => notFoundError(resource, "ids", id)) } : {};
  return { ...data, ...includes, ...errors };
}
