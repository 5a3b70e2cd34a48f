// The search toolset: recent search (plain and with authors) and trends.
import * as v from "valibot";
import { FLAT, PER_ITEM, TWO_PER_ITEM } from "../billing/costs.ts";
import { defineEndpoint } from "../endpoint.ts";
import * as model from "../model.ts";
import { choiceParam, integerParam, nextTokenParam, searchQueryParam } from "../params.ts";
import type { Store } from "../ports/store.ts";
import { type ReadRangeParams, readRangeOf, searchWithin, withReadRange } from "../read-range.ts";
import type { SearchNode } from "../search/ast.ts";
import {
  bucketCount,
  COUNT_RANGE_RULE,
  countBuckets,
  countWindow,
  GRANULARITIES,
  mostBuckets,
  newestBuckets,
  withinCountRange,
} from "../search/counts.ts";
import { parseSearchQuery } from "../search/query-param.ts";
import { withUserIds } from "../search/user-ids.ts";
import { oneResult, pageResult, strict, TWEET_LIST } from "./shared.ts";

/**
 * What a search entry reads: its query within the request's read range, a numeric from: / to: also
 * matching the user with that id.
 */
async function searchQueryOf(store: Store, params: ReadRangeParams & { query: string }): Promise<SearchNode> {
  return withUserIds(searchWithin(parseSearchQuery(params.query), readRangeOf(params)), store);
}

export const searchRecent = defineEndpoint({
  id: "search_recent",
  path: "/v1/search/recent",
  family: "basic",
  toolset: "search",
  tool: "search_recent_tweets",
  summary: "Tweets from the last 7 days matching a query with search operators, newest or most relevant first.",
  guidance: [
    'Operators: "phrase", OR, (), -, #tag, $tag, from:, to: (username or user id), lang:, since:/until: (date or UTC timestamp), since_id:, until_id:, conversation_id:, min_faves:, min_retweets:, and filter: (or X\'s is:/has:) links, replies, retweets, quotes, media, hashtags, mentions, verified; -is:nullcast.',
    "Use {search_recent_enriched} when you also need the authors' profiles.",
  ],
  params: withReadRange({
    query: searchQueryParam,
    sort_order: v.optional(choiceParam(["recency", "relevancy"]), "recency"),
    limit: integerParam(1, 20, 20),
    next_token: nextTokenParam,
  }),
  examples: { query: "search_query" },
  cost: PER_ITEM,
  data: v.array(model.Tweet),
  pageSize: (params) => params.limit,
  v2: {
    path: "/2/tweets/search/recent",
    ...TWEET_LIST,
    maxResults: { min: 1, max: 20, fallback: 20, v1Param: "limit" },
    idRange: true,
    passThrough: ["query", "sort_order", "since_id", "until_id", "start_time", "end_time"],
  },
  run: async ({ store, params, page }) => {
    const query = await searchQueryOf(store, params);
    return pageResult(store.searchTweets(query, params.sort_order, page), "unreachable");
  },
});

export const searchRecentEnriched = defineEndpoint({
  id: "search_recent_enriched",
  path: "/v1/search/recent/enriched",
  family: "enriched",
  toolset: "search",
  tool: "search_recent_tweets_enriched",
  summary: "Recent search with the authors' profiles joined in: tweets plus their deduplicated authors.",
  guidance: [
    "Costs 2 credits per tweet, with each author's profile.",
    "Prefer it over {search_recent} followed by {users} when you need who wrote each tweet.",
  ],
  params: withReadRange({ query: searchQueryParam, limit: integerParam(1, 20, 20), next_token: nextTokenParam }),
  examples: { query: "search_query" },
  cost: TWO_PER_ITEM,
  data: model.EnrichedSearch,
  counted: (data) => data.tweets.length,
  pageSize: (params) => params.limit,
  run: async ({ store, params, page }) => {
    const found = await store.searchTweets(await searchQueryOf(store, params), "recency", page);
    const authorIds = [...new Set(found.items.map((tweet) => tweet.author_id))];
    const authors = (await store.usersByIds(authorIds)).map(model.plainUser);
    return { data: { tweets: found.items, authors }, ...(found.next ? { next: found.next } : {}) };
  },
});

export const trends = defineEndpoint({
  id: "trends",
  path: "/v1/trends",
  family: "basic",
  toolset: "search",
  tool: "get_trends",
  summary: "The top trending topics of a location (a Yahoo WOEID; 1 is worldwide), by rank.",
  guidance: ["Flat 1 credit.", "Each trend carries a query to pass to {search_recent}."],
  params: strict({
    woeid: v.optional(
      v.pipe(v.string("must be a string"), v.regex(/^\d{1,12}$/, "must be a numeric WOEID such as 1 (worldwide)")),
      "1",
    ),
    limit: integerParam(1, 100, 20),
  }),
  examples: {},
  cost: FLAT,
  data: v.array(model.Trend),
  // Fewer than `limit` when the answer must be smaller (MCP's output budget); the price is flat either way.
  maxItems: (params) => params.limit,
  run: ({ store, params, maxItems }) =>
    oneResult(
      store.trends(params.woeid, Math.min(params.limit, maxItems)),
      `No trends for woeid ${params.woeid}: no such place has trends here. woeid 1 is worldwide; a world of imported posts has only worldwide trends, counted from the hashtags of its last day, and none when that day had no hashtags`,
    ),
});

export const searchCounts = defineEndpoint({
  id: "search_counts",
  path: "/v1/search/counts",
  family: "basic",
  toolset: "search",
  tool: "count_recent_tweets",
  beyond: "X API v2's GET /2/tweets/counts/recent",
  summary: "How many recent tweets match a query, per minute, hour or day: a search's size before paying per tweet.",
  guidance: [
    "The operators of {search_recent}, which then reads the matches.",
    "An answer cut to fit keeps the newest buckets (start says where its total begins); end_time reads earlier ones.",
  ],
  params: withReadRange(
    { query: searchQueryParam, granularity: v.optional(choiceParam(GRANULARITIES), "hour") },
    v.forward(v.partialCheck([["granularity"], ["start_time"], ["end_time"]], withinCountRange, COUNT_RANGE_RULE), [
      "end_time",
    ]),
  ),
  examples: { query: "search_query" },
  cost: FLAT,
  data: model.SearchCounts,
  counted: (data) => data.counts.length,
  // Fewer buckets when the answer must be smaller (MCP's output budget): the newest, as a range's end is
  // what a count is usually read for; start says where the total begins.
  maxItems: (params) => mostBuckets(params.granularity),
  v2: {
    path: "/2/tweets/counts/recent",
    resource: "count",
    items: (data) => data.counts,
    passThrough: ["query", "granularity", "since_id", "until_id", "start_time", "end_time"],
  },
  run: async ({ store, params, page, maxItems }) => {
    const clock = (await store.clockMs()) ?? Date.now();
    const whole = countWindow(params.granularity, clock, params.start_time, params.end_time);
    const window = newestBuckets(whole, Math.min(bucketCount(whole), maxItems));
    const counts = await store.countTweets(await searchQueryOf(store, params), window, page.owner);
    const at = (ms: number) => new Date(ms).toISOString();
    return {
      data: {
        start: at(window.startMs),
        end: at(window.endMs),
        total_tweet_count: counts.reduce((sum, n) => sum + n, 0),
        counts: countBuckets(window, counts),
      },
    };
  },
});
