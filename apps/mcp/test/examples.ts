// Arguments for every tool: its catalogue entry's examples in the fixture world (the same ones the
// OpenAPI document and /docs show), so a new entry is tested without being listed here. Some tools
// are called with more than their examples, each for what that exercises.
import { catalogue } from "@social/core";
import { exampleParams, examples } from "@social/fixtures";

const VARIATIONS: Readonly<Record<string, Record<string, unknown>>> = {
  // Relevancy ranking and a limit, beside the default recency.
  search_recent_tweets: { sort_order: "relevancy", limit: 5 },
  search_recent_tweets_enriched: { limit: 5 },
  // A username in another case, as agents write it.
  get_user_by_username: { username: examples.username.toUpperCase() },
  // A repeated id is answered once.
  get_users: { ids: `${examples.user_id},${examples.media_user_id},${examples.user_id}` },
  // A page of ids, and more than one page of them.
  get_user_followers: { mode: "ids", limit: 60 },
  get_trends: { limit: 10 },
  get_community_tweets: { sort: "likes", time_filter: "week" },
  // An @ and a name in another case, as agents write handles, and a name nobody has.
  get_users_by_usernames: { usernames: `@${examples.username.toUpperCase()},${examples.source_username},nobody_here` },
  count_recent_tweets: { granularity: "day" },
};

const unknown = Object.keys(VARIATIONS).filter((tool) => !catalogue.some((endpoint) => endpoint.tool === tool));
if (unknown.length > 0) throw new Error(`VARIATIONS names tools the catalogue has not: ${unknown.join(", ")}`);

export const EXAMPLE_ARGUMENTS: Readonly<Record<string, Record<string, unknown>>> = Object.fromEntries(
  catalogue.map((endpoint) => [endpoint.tool, { ...exampleParams(endpoint), ...VARIATIONS[endpoint.tool] }]),
);

export { examples };
