// The tweets toolset: tweets by id or ids, their quotes, retweeters and articles.
import * as v from "valibot";
import { FLAT, PER_ITEM } from "../billing/costs.ts";
import { defineEndpoint } from "../endpoint.ts";
import { notFound } from "../errors.ts";
import * as model from "../model.ts";
import { idsParam } from "../params.ts";
import {
  byId,
  byIdPaged,
  fixedPageSize,
  ONE_TWEET,
  oneResult,
  pageResult,
  strict,
  TWEET_LIST,
  USER_LIST,
} from "./shared.ts";

export const tweet = defineEndpoint({
  id: "tweet",
  path: "/v1/tweets/{id}",
  family: "basic",
  toolset: "tweets",
  tool: "get_tweet",
  summary: "One tweet by id.",
  guidance: ["Use {tweet_context} for the tweet with its author, quotes and retweeters in one call."],
  params: byId,
  examples: { id: "tweet_id" },
  cost: FLAT,
  data: model.Tweet,
  v2: { path: "/2/tweets/{id}", ...ONE_TWEET },
  run: ({ store, params }) =>
    oneResult(
      store.tweetsByIds([params.id]).then(([found]) => found),
      `No tweet with id ${params.id}`,
    ),
});

export const tweets = defineEndpoint({
  id: "tweets",
  path: "/v1/tweets",
  family: "basic",
  toolset: "tweets",
  tool: "get_tweets",
  summary: "Several tweets by comma-separated ids (up to 100); ids not found are left out.",
  guidance: ["Batch lookups: one request for up to 100 tweets instead of one {tweet} call each."],
  params: strict({ ids: idsParam }),
  examples: { ids: ["tweet_id", "quoted_tweet_id"] },
  cost: PER_ITEM,
  data: v.array(model.Tweet),
  maxItems: (params) => params.ids.length,
  v2: { path: "/2/tweets", ...TWEET_LIST, passThrough: ["ids"] },
  run: async ({ store, params, maxItems }) => ({ data: await store.tweetsByIds(params.ids.slice(0, maxItems)) }),
});

export const quotes = defineEndpoint({
  id: "tweet_quotes",
  path: "/v1/tweets/{id}/quotes",
  family: "basic",
  toolset: "tweets",
  tool: "get_quote_tweets",
  summary: "Tweets that quote a tweet, most recent first.",
  guidance: ["What people said when they shared it.", "Use {tweet_retweeters} for who shared it without comment."],
  params: byIdPaged,
  examples: { id: "quoted_tweet_id" },
  cost: PER_ITEM,
  data: v.array(model.Tweet),
  pageSize: fixedPageSize,
  v2: { path: "/2/tweets/{id}/quote_tweets", ...TWEET_LIST, maxResults: { min: 10, max: 100, fallback: 10 } },
  run: ({ store, params, page }) => pageResult(store.quotes(params.id, page), `No tweet with id ${params.id}`),
});

export const retweeters = defineEndpoint({
  id: "tweet_retweeters",
  path: "/v1/tweets/{id}/retweeters",
  family: "basic",
  toolset: "tweets",
  tool: "get_retweeters",
  summary: "Users who retweeted a tweet, most recent retweet first.",
  guidance: ["Who amplified a tweet.", "Use {tweet_quotes} for those who added commentary."],
  params: byIdPaged,
  examples: { id: "quoted_tweet_id" },
  cost: PER_ITEM,
  data: v.array(model.User),
  pageSize: fixedPageSize,
  v2: { path: "/2/tweets/{id}/retweeted_by", ...USER_LIST, maxResults: { min: 1, max: 100, fallback: 100 } },
  run: ({ store, params, page }) => pageResult(store.retweeters(params.id, page), `No tweet with id ${params.id}`),
});

export const article = defineEndpoint({
  id: "tweet_article",
  path: "/v1/tweets/{id}/article",
  family: "enriched",
  toolset: "tweets",
  tool: "get_tweet_article",
  summary: "The long-form article attached to a tweet: title, cover, content blocks in reading order, metrics, author.",
  guidance: ["Only tweets that carry an article have one; others answer not found."],
  params: byId,
  examples: { id: "article_tweet_id" },
  cost: FLAT,
  data: model.Article,
  run: async ({ store, params }) => {
    const found = await store.article(params.id);
    if (found) return { data: found };
    // Which of the two is missing, so that the caller knows whether to look further: read on failure only.
    const [tweet] = await store.tweetsByIds([params.id]);
    throw notFound(
      tweet ? `Tweet ${params.id} has no article: only some tweets carry one` : `No tweet with id ${params.id}`,
    );
  },
});
