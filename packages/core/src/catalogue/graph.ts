// The graph toolset: who follows whom.
import * as v from "valibot";
import { FLAT, PER_50_ITEMS, PER_ITEM } from "../billing/costs.ts";
import { defineEndpoint } from "../endpoint.ts";
import * as model from "../model.ts";
import { choiceParam, idParam, integerParam, nextTokenParam, paramsIssueMessage, usernameParam } from "../params.ts";
import type { GraphDirection } from "../ports/store.ts";
import { byIdPaged, fixedPageSize, idPageResult, oneResult, PAGE_SIZE, pageResult, strict } from "./shared.ts";

/** Ids per page with mode=ids when no limit is given. */
const IDS_PAGE_SIZE = 200;

const graphParams = v.pipe(
  v.strictObject(
    {
      id: idParam,
      mode: v.optional(choiceParam(["ids", "profiles"]), "profiles"),
      limit: v.optional(integerParam(1, 5000, IDS_PAGE_SIZE)),
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

/** The /2 form always reads profiles (its mode is fixed), so every item is a user. */
function profilesOf(data: readonly (model.IdObject | model.User)[]): model.User[] {
  return data.filter((item): item is model.User => "username" in item);
}

interface GraphShape<Id extends string> {
  id: Id;
  path: string;
  tool: string;
  summary: string;
  v2Path: string;
}

function graph<const Id extends string>(direction: GraphDirection, { v2Path, ...shape }: GraphShape<Id>) {
  return defineEndpoint({
    ...shape,
    family: "basic",
    toolset: "graph",
    guidance: [
      "Use mode=ids for large audiences (1 credit per 50 ids); mode=profiles costs 1 credit per user.",
      "Then read the profiles you need with {users}.",
    ],
    params: graphParams,
    examples: { id: "user_id" },
    cost: { param: "mode", rules: { ids: PER_50_ITEMS, profiles: PER_ITEM } },
    data: v.union([v.array(model.IdObject), v.array(model.User)]),
    pageSize: (params) => (params.mode === "ids" ? (params.limit ?? IDS_PAGE_SIZE) : PAGE_SIZE),
    v2: {
      path: v2Path,
      resource: "user",
      items: profilesOf,
      maxResults: { min: 1, max: 1000, fallback: 100 },
      fixed: { mode: "profiles" },
    },
    run: ({ store, params, page }) =>
      params.mode === "ids"
        ? idPageResult(store.graphIds(params.id, direction, page), `No user with id ${params.id}`)
        : pageResult(store.graphUsers(params.id, direction, page), `No user with id ${params.id}`),
  });
}

export const followers = graph("followers", {
  id: "users_followers",
  path: "/v1/users/{id}/followers",
  tool: "get_user_followers",
  summary:
    "The accounts that follow the user, newest relationship first: user profiles, or bare ids with mode=ids (up to 5,000 per page).",
  v2Path: "/2/users/{id}/followers",
});

export const following = graph("following", {
  id: "users_following",
  path: "/v1/users/{id}/following",
  tool: "get_user_following",
  summary:
    "The accounts the user follows, newest relationship first: user profiles, or bare ids with mode=ids (up to 5,000 per page).",
  v2Path: "/2/users/{id}/following",
});

export const verifiedFollowers = defineEndpoint({
  id: "user_verified_followers",
  path: "/v1/users/{id}/verified-followers",
  family: "basic",
  toolset: "graph",
  tool: "get_user_verified_followers",
  summary: "The verified accounts that follow a user, newest relationship first.",
  guidance: ["A cheap way to see a user's notable audience without paging through every follower."],
  params: byIdPaged,
  examples: { id: "user_id" },
  cost: PER_ITEM,
  data: v.array(model.User),
  pageSize: fixedPageSize,
  run: ({ store, params, page }) =>
    pageResult(store.graphUsers(params.id, "followers", page, { verifiedOnly: true }), `No user with id ${params.id}`),
});

export const relationship = defineEndpoint({
  id: "users_relationship",
  path: "/v1/users/relationship",
  family: "basic",
  toolset: "graph",
  tool: "get_relationship",
  summary: "Whether source follows target and whether target follows source back, by usernames.",
  guidance: ["One flat-cost check instead of paging through followers lists."],
  params: strict({ source: usernameParam, target: usernameParam }),
  examples: { source: "source_username", target: "target_username" },
  cost: FLAT,
  data: model.Relationship,
  run: ({ store, params }) =>
    oneResult(
      store.relationship(params.source, params.target),
      `No user named ${params.source} or no user named ${params.target}`,
    ),
});
