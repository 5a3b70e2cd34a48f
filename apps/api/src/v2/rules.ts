// The /2 compatibility layer's one table: for each catalogue entry with a v2Path, what its /2 form
// adds to the /v1 read. Paths, path parameters, page sizes and costs all stay in the catalogue; a rule
// only says what the /2 shape needs that the catalogue cannot know (X API v2's own names and bounds).
import { catalogue, type Endpoint } from "@social/core";

export type Resource = "tweet" | "user";

export interface MaxResults {
  min: number;
  max: number;
  fallback: number;
  /**
   * The /v1 parameter max_results becomes (search's `limit`); without it max_results sets the page
   * size directly, so pages hold what the /2 client asked for while the cost rule stays /v1's.
   */
  v1Param?: string;
}

export interface V2Rule {
  /** What `data` holds. */
  resource: Resource;
  /** Set on paginated reads. */
  maxResults?: MaxResults;
  /** /v1 parameters the /2 form always sends (followers and following read profiles). */
  fixed?: Readonly<Record<string, string>>;
  /** Whether meta reports newest_id and oldest_id (tweet timelines; X leaves them out elsewhere). */
  idRange?: boolean;
  /** /v1 query parameters passed through under the same name. */
  passThrough?: readonly string[];
  /**
   * Accepts exclude=replies: X API v2's user timeline includes replies unless told not to, while the
   * /v1 timeline it maps to already leaves them out, so code that excludes them runs unchanged.
   */
  excludesReplies?: boolean;
}

// Bounds: SPEC.md's for search, user tweets, followers and following; X API v2's for the others.
const RULES: Readonly<Record<string, V2Rule>> = {
  search_recent: {
    resource: "tweet",
    maxResults: { min: 1, max: 20, fallback: 20, v1Param: "limit" },
    idRange: true,
    passThrough: ["query", "sort_order"],
  },
  user: { resource: "user" },
  user_by_username: { resource: "user" },
  users: { resource: "user", passThrough: ["ids"] },
  user_tweets: {
    resource: "tweet",
    maxResults: { min: 5, max: 100, fallback: 20 },
    idRange: true,
    excludesReplies: true,
  },
  users_followers: { resource: "user", maxResults: { min: 1, max: 1000, fallback: 100 }, fixed: { mode: "profiles" } },
  users_following: { resource: "user", maxResults: { min: 1, max: 1000, fallback: 100 }, fixed: { mode: "profiles" } },
  tweet: { resource: "tweet" },
  tweets: { resource: "tweet", passThrough: ["ids"] },
  tweet_quotes: { resource: "tweet", maxResults: { min: 10, max: 100, fallback: 10 } },
  tweet_retweeters: { resource: "user", maxResults: { min: 1, max: 100, fallback: 100 } },
  list_tweets: { resource: "tweet", maxResults: { min: 1, max: 100, fallback: 100 } },
  list_members: { resource: "user", maxResults: { min: 1, max: 100, fallback: 100 } },
  list_subscribers: { resource: "user", maxResults: { min: 1, max: 100, fallback: 100 } },
};

export interface V2Route {
  /** The /v1 entry whose read, validation and cost the /2 path reuses. */
  endpoint: Endpoint;
  /** OpenAPI-style /2 path. */
  path: string;
  rule: V2Rule;
}

/** Every catalogue entry with a /2 path; one without a rule is a mistake caught at start-up. */
export function v2Routes(): V2Route[] {
  return catalogue.flatMap((endpoint) => {
    if (!endpoint.v2Path) return [];
    const rule = RULES[endpoint.id];
    if (!rule) throw new Error(`${endpoint.id} has v2Path ${endpoint.v2Path} but no /2 rule`);
    return [{ endpoint, path: endpoint.v2Path, rule }];
  });
}
