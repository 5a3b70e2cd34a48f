// The communities toolset: a community, its search, members, moderators and tweets.
import * as v from "valibot";
import { FLAT, PER_ITEM } from "../billing/costs.ts";
import { defineEndpoint } from "../endpoint.ts";
import * as model from "../model.ts";
import { choiceParam, idParam, nextTokenParam } from "../params.ts";
import { byId, byIdPaged, fixedPageSize, oneResult, pageResult, strict } from "./shared.ts";

const missing = (id: string) => `No community with id ${id}`;

export const community = defineEndpoint({
  id: "community",
  path: "/v1/communities/{id}",
  family: "basic",
  toolset: "communities",
  tool: "get_community",
  summary: "One community by id: name, description and member count.",
  guidance: ["Use {communities_search} to find a community's id from words in its name."],
  params: byId,
  examples: { id: "community_id" },
  cost: FLAT,
  data: model.Community,
  run: ({ store, params }) => oneResult(store.community(params.id), missing(params.id)),
});

export const communitySearch = defineEndpoint({
  id: "communities_search",
  path: "/v1/communities/search",
  family: "basic",
  toolset: "communities",
  tool: "search_communities",
  summary: "Communities whose name or description contains every word of the query, largest first.",
  guidance: [
    "Finds a community's id.",
    "Then read its posts with {community_tweets}.",
    "Then see who is in it with {community_members}.",
  ],
  params: strict({
    query: v.pipe(
      v.string("must be a string"),
      v.trim(),
      v.minLength(1, "must not be empty"),
      v.maxLength(100, "must be at most 100 characters"),
    ),
    next_token: nextTokenParam,
  }),
  examples: { query: "community_query" },
  cost: PER_ITEM,
  data: v.array(model.Community),
  pageSize: fixedPageSize,
  run: ({ store, params, page }) => pageResult(store.searchCommunities(params.query, page), "unreachable"),
});

const communityUsers = {
  family: "basic",
  toolset: "communities",
  params: byIdPaged,
  examples: { id: "community_id" },
  cost: PER_ITEM,
  data: v.array(model.User),
  pageSize: fixedPageSize,
} as const;

export const communityMembers = defineEndpoint({
  ...communityUsers,
  id: "community_members",
  path: "/v1/communities/{id}/members",
  tool: "get_community_members",
  summary: "The users who are members of a community, newest member first.",
  guidance: ["Who is in the community.", "Use {community_moderators} for who runs it."],
  run: ({ store, params, page }) => pageResult(store.communityMembers(params.id, page), missing(params.id)),
});

export const communityModerators = defineEndpoint({
  ...communityUsers,
  id: "community_moderators",
  path: "/v1/communities/{id}/moderators",
  tool: "get_community_moderators",
  summary: "The users who moderate a community.",
  guidance: ["Who runs the community.", "Use {community_members} for everyone in it."],
  run: ({ store, params, page }) => pageResult(store.communityModerators(params.id, page), missing(params.id)),
});

export const communityTweets = defineEndpoint({
  id: "community_tweets",
  path: "/v1/communities/{id}/tweets",
  family: "enriched",
  toolset: "communities",
  tool: "get_community_tweets",
  summary: "Tweets posted in a community, by relevance (default), recency, or likes within a time window.",
  guidance: ["sort=likes with time_filter=day|week|month|year|all finds the community's best posts of a period."],
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
  examples: { id: "community_id" },
  cost: PER_ITEM,
  data: v.array(model.Tweet),
  pageSize: fixedPageSize,
  run: ({ store, params, page }) =>
    pageResult(store.communityTweets(params.id, params.sort, params.time_filter ?? "all", page), missing(params.id)),
});
