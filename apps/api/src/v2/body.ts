// Success bodies in X API v2's shape: `data` (never an empty array), `includes.users` for
// expansions=author_id, `meta` on paginated reads and `errors` for ids that were not found.
import type { Store, Tweet, User, V2Mapping } from "@social/core";
import { v2Tweet, v2User } from "./fields.ts";
import type { V2Route } from "./mapped.ts";
import type { RenderOptions } from "./query.ts";

type Json = Record<string, unknown>;

const NOT_FOUND_TYPE = "https://api.twitter.com/2/problems/resource-not-found";

/** One id (or username) that a lookup did not find, as an element of X API v2's `errors`. */
export function notFoundError(resource: V2Mapping["resource"], parameter: string, value: string): Json {
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

/** A /2 read's items in their resource's type, with the authors expansions=author_id asked for. */
export type V2Items =
  | { resource: "tweet"; items: readonly Tweet[]; authors: readonly User[] }
  | { resource: "user"; items: readonly User[] };

/**
 * The read's items as its mapping reads them, and the tweets' authors when expansions=author_id asks
 * for them. The pipeline runs it before the charge, so a failure here leaves the request uncharged.
 */
export async function v2Items(
  store: Store,
  mapping: V2Mapping,
  data: unknown,
  options: RenderOptions,
): Promise<V2Items> {
  if (mapping.resource === "user") return { resource: "user", items: mapping.items(data) };
  const items = mapping.items(data);
  const authors =
    options.authors && items.length > 0
      ? await store.usersByIds([...new Set(items.map((tweet) => tweet.author_id))])
      : [];
  return { resource: "tweet", items, authors };
}

function idRange(tweets: readonly Tweet[]): Json {
  if (tweets.length === 0) return {};
  const ids = tweets.map((tweet) => BigInt(tweet.id)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { newest_id: String(ids.at(-1)), oldest_id: String(ids[0]) };
}

function authorIncludes(read: V2Items, options: RenderOptions): Json {
  if (read.resource !== "tweet" || read.authors.length === 0) return {};
  return { includes: { users: read.authors.map((user) => v2User(user, options.userFields)) } };
}

function render(read: V2Items, options: RenderOptions): Json[] {
  return read.resource === "tweet"
    ? read.items.map((tweet) => v2Tweet(tweet, options.tweetFields))
    : read.items.map((user) => v2User(user, options.userFields));
}

export interface PageData {
  nextToken?: string;
  /** For lookups by ids: the ids asked for, so the missing ones can be reported. */
  requestedIds?: readonly string[];
}

export function successBody(route: V2Route, read: V2Items, page: PageData, options: RenderOptions): Json {
  const rendered = render(read, options);
  const includes = authorIncludes(read, options);
  if (route.v2.maxResults) {
    const data = rendered.length === 0 ? {} : { data: rendered };
    // A token on an empty page would send @xdevplatform/xdk round in circles, so it goes with data only.
    const next = page.nextToken && rendered.length > 0 ? { next_token: page.nextToken } : {};
    const range = route.v2.idRange && read.resource === "tweet" ? idRange(read.items) : {};
    return { ...data, ...includes, meta: { result_count: rendered.length, ...range, ...next } };
  }
  const data = rendered.length === 0 ? {} : { data: route.lookupParam ? rendered[0] : rendered };
  const found = new Set<string>(read.items.map((item) => item.id));
  const missing = (page.requestedIds ?? []).filter((id) => !found.has(id));
  const errors = missing.length > 0 ? { errors: missing.map((id) => notFoundError(read.resource, "ids", id)) } : {};
  return { ...data, ...includes, ...errors };
}
