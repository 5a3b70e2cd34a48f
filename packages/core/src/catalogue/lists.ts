// The lists toolset: a public list's tweets, members and subscribers.
import * as v from "valibot";
import { PER_ITEM } from "../billing/costs.ts";
import { defineEndpoint } from "../endpoint.ts";
import * as model from "../model.ts";
import { byIdPaged, fixedPageSize, pageResult, TWEET_LIST, USER_LIST } from "./shared.ts";

const listRead = {
  family: "basic",
  toolset: "lists",
  params: byIdPaged,
  examples: { id: "list_id" },
  cost: PER_ITEM,
  pageSize: fixedPageSize,
} as const;

const missing = (id: string) => `No public list with id ${id}`;
/** X API v2's bounds for the list reads. */
const maxResults = { min: 1, max: 100, fallback: 100 };

export const listTweets = defineEndpoint({
  ...listRead,
  id: "list_tweets",
  path: "/v1/lists/{id}/tweets",
  tool: "get_list_tweets",
  summary: "Recent tweets from a public list's members, newest first.",
  guidance: ["A curated feed.", "Use {list_members} to see who is on the list."],
  data: v.array(model.Tweet),
  v2: { path: "/2/lists/{id}/tweets", ...TWEET_LIST, maxResults },
  run: ({ store, params, page }) => pageResult(store.listTweets(params.id, page), missing(params.id)),
});

export const listMembers = defineEndpoint({
  ...listRead,
  id: "list_members",
  path: "/v1/lists/{id}/members",
  tool: "get_list_members",
  summary: "The users who are members of a public list.",
  guidance: ["Who the list curates.", "Use {list_tweets} for what they post."],
  data: v.array(model.User),
  v2: { path: "/2/lists/{id}/members", ...USER_LIST, maxResults },
  run: ({ store, params, page }) => pageResult(store.listMembers(params.id, page), missing(params.id)),
});

export const listSubscribers = defineEndpoint({
  ...listRead,
  id: "list_subscribers",
  path: "/v1/lists/{id}/subscribers",
  tool: "get_list_subscribers",
  summary: "The users who follow (subscribe to) a public list.",
  guidance: ["The list's audience.", "Use {list_members} for who is on it."],
  data: v.array(model.User),
  v2: { path: "/2/lists/{id}/followers", ...USER_LIST, maxResults },
  run: ({ store, params, page }) => pageResult(store.listSubscribers(params.id, page), missing(params.id)),
});
