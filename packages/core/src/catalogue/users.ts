// The users toolset: profiles by id, username or ids, and a user's timelines.
import * as v from "valibot";
import { FLAT, PER_ITEM } from "../billing/costs.ts";
import { defineEndpoint, type ExampleName, type ExampleValues, type Guidance, type ParamsSchema } from "../endpoint.ts";
import * as model from "../model.ts";
import { idParam, idsParam, nextTokenParam, usernameParam, usernamesParam } from "../params.ts";
import type { TimelineKind } from "../ports/store.ts";
import { readRangeOf, withReadRange } from "../read-range.ts";
import type { V2Mapping } from "../v2-mapping.ts";
import { byId, fixedPageSize, ONE_USER, oneResult, pageResult, strict, TWEET_LIST, USER_LIST } from "./shared.ts";

export const user = defineEndpoint({
  id: "user",
  path: "/v1/users/{id}",
  family: "basic",
  toolset: "users",
  tool: "get_user",
  summary: "One user's profile by numeric id.",
  guidance: ["Use {user_by_username} when you have a handle.", "Use {profile} when you also want their recent tweets."],
  params: byId,
  examples: { id: "user_id" },
  cost: FLAT,
  data: model.UserLookup,
  v2: { path: "/2/users/{id}", ...ONE_USER },
  run: async ({ store, params }) =>
    oneResult(
      store.usersByIds([params.id]).then(([found]) => found),
      `No user with id ${params.id}`,
    ),
});

export const userByUsername = defineEndpoint({
  id: "user_by_username",
  path: "/v1/users/by-username/{username}",
  family: "basic",
  toolset: "users",
  tool: "get_user_by_username",
  summary: "One user's profile by username (case-insensitive, without the @).",
  guidance: ["The usual entry point from a handle; the returned id is what every other user read takes."],
  params: strict({ username: usernameParam }),
  examples: { username: "username" },
  cost: FLAT,
  data: model.UserLookup,
  v2: { path: "/2/users/by/username/{username}", ...ONE_USER },
  run: ({ store, params }) => oneResult(store.userByUsername(params.username), `No user named ${params.username}`),
});

export const users = defineEndpoint({
  id: "users",
  path: "/v1/users",
  family: "basic",
  toolset: "users",
  tool: "get_users",
  summary: "Several users' profiles by comma-separated ids (up to 100); ids not found are left out.",
  guidance: ["Batch lookups: one request for up to 100 users instead of one {user} call each."],
  params: strict({ ids: idsParam }),
  examples: { ids: ["user_id"] },
  cost: PER_ITEM,
  data: v.array(model.User),
  maxItems: (params) => params.ids.length,
  v2: { path: "/2/users", ...USER_LIST, passThrough: ["ids"] },
  run: async ({ store, params, maxItems }) => ({
    data: (await store.usersByIds(params.ids.slice(0, maxItems))).map(model.plainUser),
  }),
});

export const usersByUsernames = defineEndpoint({
  id: "users_by_usernames",
  path: "/v1/users/by-usernames",
  family: "basic",
  toolset: "users",
  tool: "get_users_by_usernames",
  beyond: "X API v2's GET /2/users/by?usernames=",
  summary: "Several users' profiles by comma-separated usernames (up to 100, any case); missing ones are left out.",
  guidance: ["One call instead of one {user_by_username} per handle."],
  params: strict({ usernames: usernamesParam }),
  examples: { usernames: ["username", "source_username"] },
  cost: PER_ITEM,
  data: v.array(model.User),
  maxItems: (params) => params.usernames.length,
  v2: { path: "/2/users/by", ...USER_LIST, passThrough: ["usernames"] },
  run: async ({ store, params, maxItems }) => ({
    data: (await store.usersByUsernames(params.usernames.slice(0, maxItems))).map(model.plainUser),
  }),
});

const EXCLUDABLE = ["retweets", "replies"] as const;
const excludeRule = `must be a comma-separated list of ${EXCLUDABLE.join(", ")}`;

/**
 * What a timeline leaves out, as X API v2's exclude names it: retweets, and replies (which the timeline
 * of a user's tweets leaves out anyway, so code written for X that excludes them runs unchanged).
 */
const EXCLUDABLE_NAME = `(${EXCLUDABLE.join("|")})`;
const excludeParam = v.optional(
  v.pipe(
    v.string(excludeRule),
    v.description("retweets: original tweets only (replies never are in it)"),
    v.regex(new RegExp(`^${EXCLUDABLE_NAME}(,${EXCLUDABLE_NAME})*$`), excludeRule),
    v.transform((text) => text.split(",")),
  ),
);

/** X's max_results of a user's timelines, with SPEC.md's default for /2/users/{id}/tweets. */
const TIMELINE_MAX_RESULTS = { min: 5, max: 100, fallback: 20 };

const timelineParams = withReadRange({ id: idParam, next_token: nextTokenParam });
type TimelineParams = v.InferOutput<typeof timelineParams>;

interface TimelineShape<Id extends string, P extends ParamsSchema> {
  id: Id;
  path: string;
  tool: string;
  summary: string;
  guidance: Guidance;
  user: ExampleName;
  beyond?: string;
  v2?: V2Mapping<model.Tweet[]>;
  params: P;
  /** Which of the user's timelines a request reads. */
  kind: (params: v.InferOutput<P>) => TimelineKind;
}

/** A user's timeline: a page of the kind the request names, within the read range it names. */
function timeline<const Id extends string, P extends ParamsSchema>({
  user: example,
  kind,
  ...shape
}: TimelineShape<Id, P>) {
  return defineEndpoint({
    ...shape,
    family: "basic",
    toolset: "users",
    // Every timeline's one required parameter is the user's id.
    examples: { id: example } as ExampleValues<P>,
    cost: PER_ITEM,
    data: v.array(model.Tweet),
    pageSize: fixedPageSize,
    run: ({ store, params, page }) => {
      const { id, ...range } = params as v.InferOutput<P> & TimelineParams;
      const within = readRangeOf(range);
      const read = store.timeline(id, kind(params), within === undefined ? page : { ...page, range: within });
      return pageResult(read, `No user with id ${id}`);
    },
  });
}

export const userTweets = timeline({
  id: "user_tweets",
  path: "/v1/users/{id}/tweets",
  tool: "get_user_tweets",
  summary: "A user's recent original tweets and retweets, newest first (replies excluded).",
  guidance: [
    "Use {user_replies} to include replies.",
    "Use {user_media} for tweets with media only.",
    "since_id with the newest id already seen reads only what is new.",
  ],
  user: "user_id",
  params: withReadRange({ id: idParam, next_token: nextTokenParam, exclude: excludeParam }),
  kind: (params) => (params.exclude?.includes("retweets") ? "originals" : "tweets"),
  v2: {
    path: "/2/users/{id}/tweets",
    ...TWEET_LIST,
    maxResults: TIMELINE_MAX_RESULTS,
    idRange: true,
    passThrough: ["exclude", "since_id", "until_id", "start_time", "end_time"],
  },
});

export const userReplies = timeline({
  id: "user_replies",
  path: "/v1/users/{id}/tweets/replies",
  tool: "get_user_tweets_and_replies",
  summary: "A user's recent tweets including replies, newest first.",
  guidance: ["Use it to see a user's conversations.", "Use {user_tweets} when replies are noise."],
  user: "user_id",
  params: timelineParams,
  kind: () => "replies",
});

export const userMedia = timeline({
  id: "user_media",
  path: "/v1/users/{id}/media",
  tool: "get_user_media",
  summary: "A user's recent tweets that carry media (photos), newest first.",
  guidance: ["Only tweets with a media array.", "Use {user_tweets} for everything."],
  user: "media_user_id",
  params: timelineParams,
  kind: () => "media",
});

export const userMentions = timeline({
  id: "user_mentions",
  path: "/v1/users/{id}/mentions",
  tool: "get_user_mentions",
  beyond: "X API v2's GET /2/users/{id}/mentions",
  summary: "Recent tweets by anyone that @mention a user, newest first.",
  guidance: ["Use it to see what people say to or about a user.", "since_id reads only what is new."],
  user: "user_id",
  params: timelineParams,
  kind: () => "mentions",
  v2: {
    path: "/2/users/{id}/mentions",
    ...TWEET_LIST,
    maxResults: TIMELINE_MAX_RESULTS,
    idRange: true,
    passThrough: ["since_id", "until_id", "start_time", "end_time"],
  },
});
