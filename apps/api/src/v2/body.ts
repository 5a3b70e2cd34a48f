// Success bodies in X API v2's shape: `data` (never an empty array), `includes` for the expansions
// asked for, `meta` on paginated reads and `errors` for ids that were not found.
import {
  type CountBucket,
  type LookupList,
  missingValues,
  type Store,
  type Tweet,
  type User,
  type V2Mapping,
} from "@social/core";
import { type Included, includedFor, includedForUsers } from "./expansions.ts";
import { v2Media, v2Tweet, v2User } from "./fields.ts";
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

/** A /2 read's items in their resource's type, with what its expansions included. */
export type V2Items =
  | { resource: "tweet"; items: readonly Tweet[]; included: Included }
  | { resource: "user"; items: readonly User[]; included: Included }
  | { resource: "count"; items: readonly CountBucket[] };

/**
 * The read's items as its mapping reads them, and what the expansions asked for include. The pipeline
 * runs it before the charge, so a failure here leaves the request uncharged.
 */
export async function v2Items(
  store: Store,
  mapping: V2Mapping,
  data: unknown,
  options: RenderOptions,
): Promise<V2Items> {
  if (mapping.resource === "user") {
    const items = mapping.items(data);
    return { resource: "user", items, included: await includedForUsers(store, items, options.expansions) };
  }
  if (mapping.resource === "count") return { resource: "count", items: mapping.items(data) };
  const items = mapping.items(data);
  return { resource: "tweet", items, included: await includedFor(store, items, options.expansions) };
}

function idRange(tweets: readonly Tweet[]): Json {
  if (tweets.length === 0) return {};
  const ids = tweets.map((tweet) => BigInt(tweet.id)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { newest_id: String(ids.at(-1)), oldest_id: String(ids[0]) };
}

/** `includes`, with only the kinds that hold something, as X writes it; none at all when empty. */
function includesOf(read: V2Items, options: RenderOptions): Json {
  if (read.resource === "count") return {};
  const { users, tweets, media } = read.included;
  const includes: Json = {
    ...(users.length > 0 ? { users: users.map((user) => v2User(user, options.userFields)) } : {}),
    ...(tweets.length > 0 ? { tweets: tweets.map((tweet) => v2Tweet(tweet, options.tweetFields)) } : {}),
    ...(media.length > 0 ? { media: media.map((item) => v2Media(item, options.mediaFields)) } : {}),
  };
  return Object.keys(includes).length > 0 ? { includes } : {};
}

type Listed = Exclude<V2Items, { resource: "count" }>;

function render(read: Listed, options: RenderOptions): Json[] {
  return read.resource === "tweet"
    ? read.items.map((tweet) => v2Tweet(tweet, options.tweetFields))
    : read.items.map((user) => v2User(user, options.userFields));
}

/** What a lookup by a list asked for, so that the values not found can be reported under their parameter. */
export interface Requested {
  parameter: LookupList;
  values: readonly string[];
}

export interface PageData {
  nextToken?: string;
  requested?: Requested;
}

/** X's counts: the buckets oldest first, and their total in meta. */
function countsBody(buckets: readonly CountBucket[]): Json {
  const total = buckets.reduce((sum, bucket) => sum + bucket.tweet_count, 0);
  return { data: buckets, meta: { total_tweet_count: total } };
}

export function successBody(route: V2Route, read: V2Items, page: PageData, options: RenderOptions): Json {
  if (read.resource === "count") return countsBody(read.items);
  const rendered = render(read, options);
  const includes = includesOf(read, options);
  if (route.v2.maxResults) {
    const data = rendered.length === 0 ? {} : { data: rendered };
    // A token on an empty page would send @xdevplatform/xdk round in circles, so it goes with data only.
    const next = page.nextToken && rendered.length > 0 ? { next_token: page.nextToken } : {};
    const range = route.v2.idRange && read.resource === "tweet" ? idRange(read.items) : {};
    return { ...data, ...includes, meta: { result_count: rendered.length, ...range, ...next } };
  }
  const data = rendered.length === 0 ? {} : { data: route.lookupParam ? rendered[0] : rendered };
  const missing = page.requested ? missingValues(page.requested.parameter, page.requested.values, read.items) : [];
  const parameter = page.requested?.parameter;
  const errors =
    parameter && missing.length > 0
      ? { errors: missing.map((value) => notFoundError(read.resource, parameter, value)) }
      : {};
  return { ...data, ...includes, ...errors };
}
