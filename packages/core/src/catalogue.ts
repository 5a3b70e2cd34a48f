// The endpoint catalogue: the 31 /v1 reads of SPEC.md, one entry each. Decisions for the points SPEC.md
// leaves open are made here and documented in the README and the OpenAPI description:
// - Pages without a `limit` parameter hold PAGE_SIZE (20) items.
// - `ids` lists hold 1 to 100 ids (MAX_IDS); repeated ids are answered once.
// - limit with mode=profiles, and time_filter with a sort other than likes, are invalid_request.
// - /v1/communities/search: an array of Community objects, 20 per page, 1 credit + 1 per community.
// - /v1/trends: an array of Trend objects; flat 1 credit.
// - Workflow "items": thread → its tweets; profile → recent_tweets (the user is in the base credit);
//   tweet context → quotes + retweeters (the tweet and its author are in the base credit).
// - "1 per 50 items" rounds up (see costs.ts).
import * as v from "valibot";
import { FLAT, PER_50_ITEMS, PER_ITEM, TWO_PER_ITEM } from "./costs.ts";
import { defineEndpoint, type Endpoint, type ReadResult } from "./endpoint.ts";
import { notFound } from "./errors.ts";
import * as model from "./model.ts";
import {
  choiceParam,
  idParam,
  idsParam,
  integerParam,
  nextTokenParam,
  paramsIssueMessage,
  searchQueryParam,
  usernameParam,
} from "./params.ts";
import type { IdPage, Page } from "./ports.ts";
import { parseSearchQuery } from "./search-query.ts";

export const PAGE_SIZE = 20;
/** Most tweets a thread read returns; a longer self-thread comes back with complete=false. */
export const THREAD_MAX_TWEETS = 100;
/** Quotes, retweeters (tweet context) and recent tweets (profile) each hold at most one page. */
export const WORKFLOW_SECTION_SIZE = PAGE_SIZE;

const fixedPageSize = () => PAGE_SIZE;
const byId = { id: idParam };
const byIdPaged = { id: idParam, next_token: nextTokenParam };

async function pageResult<T>(pending: Promise<Page<T> | undefined>, missing: string): Promise<ReadResult> {
  const page = await pending;
  if (!page) throw notFound(missing);
  return { data: page.items, items: page.items.length, ...(page.next ? { next: page.next } : {}) };
}

async function idPageResult(pending: Promise<IdPage | undefined>, missing: string): Promise<ReadResult> {
  const page = await pending;
  if (!page) throw notFound(missing);
  return { data: page.ids, items: page.count, ...(page.next ? { next: page.next } : {}) };
}

async function oneResult<T>(pending: Promise<T | undefined>, missing: string): Promise<ReadResult> {
  const found = await pending;
  if (found === undefined) throw notFound(missing);
  return { data: found, items: 1 };
}

const graphParams = v.pipe(
  v.strictObject(
    {
      id: idParam,
      mode: v.optional(choiceParam(["ids", "profiles"]), "profiles"),
      limit: v.optional(integerParam(1, 5000, 200)),
      next_token: nextTokenParam,
    },
    paramsIssueMessage,
  ),
  v.forward(
    v.partialCheck(
      [["mode"], ["limit"]],
      (params) => params.limit === undefined || params.mode === "ids",
      "is supported only with mode=ids (profiles pages hold 20 users)",
    ),
    ["limit"],
  ),
);

function graphEndpoint(direction: "followers" | "following"): Endpoint {
  const who = direction === "followers" ? "accounts that follow the user" : "accounts the user follows";
  return defineEndpoint({
    id: `users_${direction}`,
    path: `/v1/users/{id}/${direction}`,
    family: "basic",
    toolset: "graph",
    tool: `get_user_${direction}`,
    summary: `The ${who}, newest relationship first: user profiles, or bare ids with mode=ids (up to 5,000 per page).`,
    guidance:
      "Use mode=ids for large audiences (1 credit per 50 ids), then get_users for the profiles you need; mode=profiles costs 1 credit per user.",
    params: graphParams,
    cost: { param: "mode", rules: { ids: PER_50_ITEMS, profiles: PER_ITEM } },
    data: v.union([v.array(model.IdObject), v.array(model.User)]),
    pageSize: (params) => (params.mode === "ids" ? ((params.limit as number | undefined) ?? 200) : PAGE_SIZE),
    v2Path: `/2/users/{id}/${direction}`,
    run: ({ store, params, page }) =>
      params.mode === "ids"
        ? idPageResult(store.graphIds(params.id, direction, page), `No user with id ${params.id}`)
        : pageResult(store.graphUsers(params.id, direction, page), `No user with id ${params.id}`),
  });
}

function strict<T extends v.ObjectEntries>(entries: T) {
  return v.strictObject(entries, paramsIssueMessage);
}

const searchRecent = defineEndpoint({
  id: "search_recent",
  path: "/v1/search/recent",
  family: "basic",
  toolset: "search",
  tool: "search_recent_tweets",
  summary: "Tweets from the last 7 days matching a query with search operators, newest or most relevant first.",
  guidance:
    'Supports "phrases", OR, (), -negation, #hashtag, $cashtag, from:, lang:, since:/until: (YYYY-MM-DD), min_faves:, min_retweets:, filter:links and filter:replies. Use search_recent_tweets_enriched when you also need the authors\' profiles.',
  params: strict({
    query: searchQueryParam,
    sort_order: v.optional(choiceParam(["recency", "relevancy"]), "recency"),
    limit: integerParam(1, 20, 20),
    next_token: nextTokenParam,
  }),
  cost: PER_ITEM,
  data: v.array(model.Tweet),
  pageSize: (params) => params.limit as number,
  v2Path: "/2/tweets/search/recent",
  run: ({ store, params, page }) =>
    pageResult(store.searchTweets(parseSearchQuery(params.query), params.sort_order, page), "unreachable"),
});

const searchRecentEnriched = defineEndpoint({
  id: "search_recent_enriched",
  path: "/v1/search/recent/enriched",
  family: "enriched",
  toolset: "search",
  tool: "search_recent_tweets_enriched",
  summary: "Recent search with the authors' profiles joined in: tweets plus their deduplicated authors.",
  guidance:
    "Prefer it over search_recent_tweets followed by get_users when you need who wrote each tweet; costs 2 credits per tweet.",
  params: strict({ query: searchQueryParam, limit: integerParam(1, 20, 20), next_token: nextTokenParam }),
  cost: TWO_PER_ITEM,
  data: model.EnrichedSearch,
  pageSize: (params) => params.limit as number,
  run: async ({ store, params, page }) => {
    const found = await store.searchTweets(parseSearchQuery(params.query), "recency", page);
    const authorIds = [...new Set(found.items.map((tweet) => tweet.author_id))];
    const authors = (await store.usersByIds(authorIds)).map(({ status: _status, ...user }) => user);
    return {
      data: { tweets: found.items, authors },
      items: found.items.length,
      ...(found.next ? { next: found.next } : {}),
    };
  },
});

const userById = defineEndpoint({
  id: "user",
  path: "/v1/users/{id}",
  family: "basic",
  toolset: "users",
  tool: "get_user",
  summary: "One user's profile by numeric id.",
  guidance: "Use get_user_by_username when you have a handle; get_profile when you also want their recent tweets.",
  params: strict(byId),
  cost: FLAT,
  data: model.UserLookup,
  v2Path: "/2/users/{id}",
  run: async ({ store, params }) =>
    oneResult(
      store.usersByIds([params.id]).then(([user]) => user),
      `No user with id ${params.id}`,
    ),
});

const userByUsername = defineEndpoint({
  id: "user_by_username",
  path: "/v1/users/by-username/{username}",
  family: "basic",
  toolset: "users",
  tool: "get_user_by_username",
  summary: "One user's profile by username (case-insensitive, without the @).",
  guidance: "The usual entry point from a handle; the returned id is what every other user read takes.",
  params: strict({ username: usernameParam }),
  cost: FLAT,
  data: model.UserLookup,
  v2Path: "/2/users/by/username/{username}",
  run: ({ store, params }) => oneResult(store.userByUsername(params.username), `No user named ${params.username}`),
});

const usersByIds = defineEndpoint({
  id: "users",
  path: "/v1/users",
  family: "basic",
  toolset: "users",
  tool: "get_users",
  summary: "Several users' profiles by comma-separated ids (up to 100); ids not found are left out.",
  guidance: "Batch lookups: one request for up to 100 users instead of one get_user call each.",
  params: strict({ ids: idsParam }),
  cost: PER_ITEM,
  data: v.array(model.User),
  v2Path: "/2/users",
  run: async ({ store, params }) => {
    const users = (await store.usersByIds(params.ids)).map(({ status: _status, ...user }) => user);
    return { data: users, items: users.length };
  },
});

function timelineEndpoint(kind: "tweets" | "replies" | "media"): Endpoint {
  const shape = {
    tweets: {
      id: "user_tweets",
      path: "/v1/users/{id}/tweets",
      tool: "get_user_tweets",
      summary: "A user's recent original tweets and retweets, newest first (replies excluded).",
      guidance: "Use get_user_tweets_and_replies to include replies, get_user_media for tweets with media only.",
      v2Path: "/2/users/{id}/tweets",
    },
    replies: {
      id: "user_replies",
      path: "/v1/users/{id}/tweets/replies",
      tool: "get_user_tweets_and_replies",
      summary: "A user's recent tweets including replies, newest first.",
      guidance: "Use it to see a user's conversations; get_user_tweets when replies are noise.",
    },
    media: {
      id: "user_media",
      path: "/v1/users/{id}/media",
      tool: "get_user_media",
      summary: "A user's recent tweets that carry media (photos), newest first.",
      guidance: "Only tweets with a media array; use get_user_tweets for everything.",
    },
  }[kind];
  return defineEndpoint({
    ...shape,
    family: "basic",
    toolset: "users",
    params: strict(byIdPaged),
    cost: PER_ITEM,
    data: v.array(model.Tweet),
    pageSize: fixedPageSize,
    run: ({ store, params, page }) => pageResult(store.timeline(params.id, kind, page), `No user with id ${params.id}`),
  });
}

const verifiedFollowers = defineEndpoint({
  id: "user_verified_followers",
  path: "/v1/users/{id}/verified-followers",
  family: "basic",
  toolset: "graph",
  tool: "get_user_verified_followers",
  summary: "The verified accounts that follow a user, newest relationship first.",
  guidance: "A cheap way to see a user's notable audience without paging through every follower.",
  params: strict(byIdPaged),
  cost: PER_ITEM,
  data: v.array(model.User),
  pageSize: fixedPageSize,
  run: ({ store, params, page }) =>
    pageResult(store.graphUsers(params.id, "followers", page, { verifiedOnly: true }), `No user with id ${params.id}`),
});

const relationship = defineEndpoint({
  id: "users_relationship",
  path: "/v1/users/relationship",
  family: "basic",
  toolset: "graph",
  tool: "get_relationship",
  summary: "Whether source follows target and whether target follows source back, by usernames.",
  guidance: "One flat-cost check instead of paging through followers lists.",
  params: strict({ source: usernameParam, target: usernameParam }),
  cost: FLAT,
  data: model.Relationship,
  run: ({ store, params }) =>
    oneResult(
      store.relationship(params.source, params.target),
      `No user named ${params.source} or no user named ${params.target}`,
    ),
});

const tweetById = defineEndpoint({
  id: "tweet",
  path: "/v1/tweets/{id}",
  family: "basic",
  toolset: "tweets",
  tool: "get_tweet",
  summary: "One tweet by id.",
  guidance: "Use get_tweet_context for the tweet with its author, quotes and retweeters in one call.",
  params: strict(byId),
  cost: FLAT,
  data: model.Tweet,
  v2Path: "/2/tweets/{id}",
  run: ({ store, params }) =>
    oneResult(
      store.tweetsByIds([params.id]).then(([tweet]) => tweet),
      `No tweet with id ${params.id}`,
    ),
});

const tweetsByIds = defineEndpoint({
  id: "tweets",
  path: "/v1/tweets",
  family: "basic",
  toolset: "tweets",
  tool: "get_tweets",
  summary: "Several tweets by comma-separated ids (up to 100); ids not found are left out.",
  guidance: "Batch lookups: one request for up to 100 tweets instead of one get_tweet call each.",
  params: strict({ ids: idsParam }),
  cost: PER_ITEM,
  data: v.array(model.Tweet),
  v2Path: "/2/tweets",
  run: async ({ store, params }) => {
    const tweets = await store.tweetsByIds(params.ids);
    return { data: tweets, items: tweets.length };
  },
});

const quotes = defineEndpoint({
  id: "tweet_quotes",
  path: "/v1/tweets/{id}/quotes",
  family: "basic",
  toolset: "tweets",
  tool: "get_quote_tweets",
  summary: "Tweets that quote a tweet, most recent first.",
  guidance: "What people said when they shared it; get_retweeters for who shared it without comment.",
  params: strict(byIdPaged),
  cost: PER_ITEM,
  data: v.array(model.Tweet),
  pageSize: fixedPageSize,
  v2Path: "/2/tweets/{id}/quote_tweets",
  run: ({ store, params, page }) => pageResult(store.quotes(params.id, page), `No tweet with id ${params.id}`),
});

const retweeters = defineEndpoint({
  id: "tweet_retweeters",
  path: "/v1/tweets/{id}/retweeters",
  family: "basic",
  toolset: "tweets",
  tool: "get_retweeters",
  summary: "Users who retweeted a tweet, most recent retweet first.",
  guidance: "Who amplified a tweet; get_quote_tweets for those who added commentary.",
  params: strict(byIdPaged),
  cost: PER_ITEM,
  data: v.array(model.User),
  pageSize: fixedPageSize,
  v2Path: "/2/tweets/{id}/retweeted_by",
  run: ({ store, params, page }) => pageResult(store.retweeters(params.id, page), `No tweet with id ${params.id}`),
});

function listEndpoint(part: "tweets" | "members" | "subscribers"): Endpoint {
  const shape = {
    tweets: {
      summary: "Recent tweets from a public list's members, newest first.",
      guidance: "A curated feed; get_list_members to see who is on the list.",
      data: v.array(model.Tweet),
      v2Path: "/2/lists/{id}/tweets",
      read: "listTweets",
    },
    members: {
      summary: "The users who are members of a public list.",
      guidance: "Who the list curates; get_list_tweets for what they post.",
      data: v.array(model.User),
      v2Path: "/2/lists/{id}/members",
      read: "listMembers",
    },
    subscribers: {
      summary: "The users who follow (subscribe to) a public list.",
      guidance: "The list's audience; get_list_members for who is on it.",
      data: v.array(model.User),
      v2Path: "/2/lists/{id}/followers",
      read: "listSubscribers",
    },
  } as const;
  const { read, ...rest } = shape[part];
  return defineEndpoint({
    ...rest,
    id: `list_${part}`,
    path: `/v1/lists/{id}/${part}`,
    family: "basic",
    toolset: "lists",
    tool: `get_list_${part}`,
    params: strict(byIdPaged),
    cost: PER_ITEM,
    pageSize: fixedPageSize,
    run: ({ store, params, page }) =>
      pageResult<unknown>(store[read](params.id, page), `No public list with id ${params.id}`),
  });
}

const community = defineEndpoint({
  id: "community",
  path: "/v1/communities/{id}",
  family: "basic",
  toolset: "communities",
  tool: "get_community",
  summary: "One community by id: name, description and member count.",
  guidance: "Use search_communities to find a community's id from words in its name.",
  params: strict(byId),
  cost: FLAT,
  data: model.Community,
  run: ({ store, params }) => oneResult(store.community(params.id), `No community with id ${params.id}`),
});

const communitySearch = defineEndpoint({
  id: "communities_search",
  path: "/v1/communities/search",
  family: "basic",
  toolset: "communities",
  tool: "search_communities",
  summary: "Communities whose name or description contains every word of the query, largest first.",
  guidance: "Find a community's id, then get_community_tweets or get_community_members.",
  params: strict({
    query: v.pipe(
      v.string("must be a string"),
      v.trim(),
      v.minLength(1, "must not be empty"),
      v.maxLength(100, "must be at most 100 characters"),
    ),
    next_token: nextTokenParam,
  }),
  cost: PER_ITEM,
  data: v.array(model.Community),
  pageSize: fixedPageSize,
  run: ({ store, params, page }) => pageResult(store.searchCommunities(params.query, page), "unreachable"),
});

function communityUsersEndpoint(role: "members" | "moderators"): Endpoint {
  return defineEndpoint({
    id: `community_${role}`,
    path: `/v1/communities/{id}/${role}`,
    family: "basic",
    toolset: "communities",
    tool: `get_community_${role}`,
    summary:
      role === "members"
        ? "The users who are members of a community, newest member first."
        : "The users who moderate a community.",
    guidance:
      role === "members"
        ? "Who is in the community; get_community_moderators for who runs it."
        : "Who runs the community; get_community_members for everyone in it.",
    params: strict(byIdPaged),
    cost: PER_ITEM,
    data: v.array(model.User),
    pageSize: fixedPageSize,
    run: ({ store, params, page }) =>
      pageResult(
        role === "members" ? store.communityMembers(params.id, page) : store.communityModerators(params.id, page),
        `No community with id ${params.id}`,
      ),
  });
}

const trends = defineEndpoint({
  id: "trends",
  path: "/v1/trends",
  family: "basic",
  toolset: "search",
  tool: "get_trends",
  summary: "The top trending topics of a location (a Yahoo WOEID; 1 is worldwide), by rank.",
  guidance: "Each trend carries a query to pass to search_recent_tweets; flat 1 credit.",
  params: strict({
    woeid: v.optional(
      v.pipe(v.string("must be a string"), v.regex(/^\d{1,12}$/, "must be a numeric WOEID such as 1 (worldwide)")),
      "1",
    ),
    limit: integerParam(1, 100, 20),
  }),
  cost: FLAT,
  data: v.array(model.Trend),
  run: ({ store, params }) =>
    oneResult(store.trends(params.woeid, params.limit), `No trends for woeid ${params.woeid}`),
});

const communityTweets = defineEndpoint({
  id: "community_tweets",
  path: "/v1/communities/{id}/tweets",
  family: "enriched",
  toolset: "communities",
  tool: "get_community_tweets",
  summary: "Tweets posted in a community, by relevance (default), recency, or likes within a time window.",
  guidance: "sort=likes with time_filter=day|week|month|year|all finds the community's best posts of a period.",
  params: v.pipe(
    strict({
      id: idParam,
      sort: v.optional(choiceParam(["relevance", "recency", "likes"]), "relevance"),
      time_filter: v.optional(choiceParam(["day", "week", "month", "year", "all"])),
      next_token: nextTokenParam,
    }),
    v.forward(
      v.partialCheck(
        [["sort"], ["time_filter"]],
        (params) => params.time_filter === undefined || params.sort === "likes",
        "is accepted only with sort=likes",
      ),
      ["time_filter"],
    ),
  ),
  cost: PER_ITEM,
  data: v.array(model.Tweet),
  pageSize: fixedPageSize,
  run: ({ store, params, page }) =>
    pageResult(
      store.communityTweets(params.id, params.sort, params.time_filter ?? "all", page),
      `No community with id ${params.id}`,
    ),
});

const article = defineEndpoint({
  id: "tweet_article",
  path: "/v1/tweets/{id}/article",
  family: "enriched",
  toolset: "tweets",
  tool: "get_tweet_article",
  summary: "The long-form article attached to a tweet: title, cover, content blocks in reading order, metrics, author.",
  guidance: "Only tweets that carry an article have one; others answer not found.",
  params: strict(byId),
  cost: FLAT,
  data: model.Article,
  run: ({ store, params }) => oneResult(store.article(params.id), `No article on tweet ${params.id}`),
});

const conversation = defineEndpoint({
  id: "tweet_conversation",
  path: "/v1/tweets/{id}/conversation",
  family: "workflow",
  toolset: "workflows",
  tool: "get_tweet_conversation",
  summary: "The replies under a tweet, oldest first, paginated; the tweet itself is excluded.",
  guidance: "Everyone's replies; get_tweet_thread for only the author's own continuation.",
  params: strict(byIdPaged),
  cost: PER_ITEM,
  data: v.array(model.Tweet),
  pageSize: fixedPageSize,
  run: ({ store, params, page }) => pageResult(store.conversation(params.id, page), `No tweet with id ${params.id}`),
});

const thread = defineEndpoint({
  id: "tweet_thread",
  path: "/v1/tweets/{id}/thread",
  family: "workflow",
  toolset: "workflows",
  tool: "get_tweet_thread",
  summary: `The root author's self-thread containing a tweet, oldest first (other users' replies excluded; at most ${THREAD_MAX_TWEETS} tweets).`,
  guidance: "Reads a whole thread in one call from any of its tweets; complete=false means it was cut short.",
  params: strict(byId),
  cost: PER_ITEM,
  data: model.Thread,
  run: async ({ store, params }) => {
    const found = await store.selfThread(params.id, THREAD_MAX_TWEETS);
    if (!found) throw notFound(`No tweet with id ${params.id}`);
    return {
      data: {
        conversation_id: found.conversationId,
        author_id: found.authorId,
        complete: found.complete,
        tweets: found.tweets,
      },
      items: found.tweets.length,
    };
  },
});

async function profileOf(
  store: Parameters<Endpoint["run"]>[0]["store"],
  user: model.UserLookup | undefined,
  missing: string,
) {
  if (!user) throw notFound(missing);
  const recent = await store.timeline(user.id, "tweets", { size: WORKFLOW_SECTION_SIZE });
  const recentTweets = recent?.items ?? [];
  return { data: { user, recent_tweets: recentTweets }, items: recentTweets.length };
}

const profileById = defineEndpoint({
  id: "profile",
  path: "/v1/profiles/{id}",
  family: "workflow",
  toolset: "workflows",
  tool: "get_profile",
  summary: `A user's profile with their ${WORKFLOW_SECTION_SIZE} most recent tweets, by user id.`,
  guidance: "One call instead of get_user plus get_user_tweets; use get_profile_by_username from a handle.",
  params: strict(byId),
  cost: PER_ITEM,
  data: model.Profile,
  run: async ({ store, params }) =>
    profileOf(store, (await store.usersByIds([params.id]))[0], `No user with id ${params.id}`),
});

const profileByUsername = defineEndpoint({
  id: "profile_by_username",
  path: "/v1/profiles/by-username/{username}",
  family: "workflow",
  toolset: "workflows",
  tool: "get_profile_by_username",
  summary: `A user's profile with their ${WORKFLOW_SECTION_SIZE} most recent tweets, by username.`,
  guidance: "The best first call about a person known by handle.",
  params: strict({ username: usernameParam }),
  cost: PER_ITEM,
  data: model.Profile,
  run: async ({ store, params }) =>
    profileOf(store, await store.userByUsername(params.username), `No user named ${params.username}`),
});

const tweetContext = defineEndpoint({
  id: "tweet_context",
  path: "/v1/tweets/{id}/context",
  family: "workflow",
  toolset: "workflows",
  tool: "get_tweet_context",
  summary: `A tweet with its author, its ${WORKFLOW_SECTION_SIZE} latest quotes and ${WORKFLOW_SECTION_SIZE} latest retweeters.`,
  guidance: "Everything about one tweet's reception in one call; page further with get_quote_tweets / get_retweeters.",
  params: strict(byId),
  cost: PER_ITEM,
  data: model.TweetContext,
  run: async ({ store, params }) => {
    const [tweet] = await store.tweetsByIds([params.id]);
    if (!tweet) throw notFound(`No tweet with id ${params.id}`);
    const section = { size: WORKFLOW_SECTION_SIZE };
    const [[author], quoted, retweeted] = await Promise.all([
      store.usersByIds([tweet.author_id]),
      store.quotes(tweet.id, section),
      store.retweeters(tweet.id, section),
    ]);
    if (!author) throw notFound(`The author of tweet ${params.id} is not available`);
    const { status: _status, ...authorUser } = author;
    const quotesFound = quoted?.items ?? [];
    const retweetersFound = retweeted?.items ?? [];
    return {
      data: { tweet, author: authorUser, quotes: quotesFound, retweeters: retweetersFound },
      items: quotesFound.length + retweetersFound.length,
    };
  },
});

export const catalogue: readonly Endpoint[] = [
  searchRecent,
  userById,
  userByUsername,
  usersByIds,
  timelineEndpoint("tweets"),
  timelineEndpoint("replies"),
  timelineEndpoint("media"),
  graphEndpoint("followers"),
  graphEndpoint("following"),
  verifiedFollowers,
  relationship,
  tweetById,
  tweetsByIds,
  quotes,
  retweeters,
  listEndpoint("tweets"),
  listEndpoint("members"),
  listEndpoint("subscribers"),
  community,
  communitySearch,
  communityUsersEndpoint("members"),
  communityUsersEndpoint("moderators"),
  trends,
  searchRecentEnriched,
  communityTweets,
  article,
  conversation,
  thread,
  profileById,
  profileByUsername,
  tweetContext,
];

export const endpointsById: ReadonlyMap<string, Endpoint> = new Map(
  catalogue.map((endpoint) => [endpoint.id, endpoint]),
);
