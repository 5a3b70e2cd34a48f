// The /2 query of one route as a valibot schema whose output is the /v1 entry's parameters: the shared
// pipeline validates it (after authentication and rate limiting, as on /v1), reads with the /v1
// parameters and charges by the /v1 cost rule. What only shapes the /2 body (fields, expansions) is read
// again from the same values once the read succeeded.
import {
  integerParam,
  nextTokenParam,
  numericParams,
  type ParamsSchema,
  paramsIssueMessage,
  pathParamNames,
} from "@social/core";
import * as v from "valibot";
import {
  type Expansion,
  FIELD_OF_EXPANSION,
  TWEET_EXPANSIONS,
  USER_EXPANSIONS,
  USER_FIELD_OF_EXPANSION,
} from "./expansions.ts";
import {
  MEDIA_FIELDS,
  type MediaField,
  PLACE_FIELDS,
  POLL_FIELDS,
  TWEET_FIELDS,
  type TweetField,
  USER_FIELDS,
  type UserField,
} from "./fields.ts";
import type { V2Route } from "./mapped.ts";

const TOKEN_PARAMS = ["pagination_token", "next_token"] as const;

/** A comma-separated list of values out of `allowed`; the message names the offenders and the allowed values. */
function listParam<const T extends readonly string[]>(allowed: T, description: string) {
  const isAllowed = (value: string): value is T[number] => allowed.includes(value);
  return v.optional(
    v.pipe(
      v.string("must be a comma-separated list"),
      v.description(description),
      v.transform((text) => text.split(",")),
      v.check(
        (values) => values.every(isAllowed),
        (issue) => {
          const unknown = issue.input.filter((value) => !isAllowed(value));
          return `value [${unknown.join(",")}] is not one of [${allowed.join(",")}]`;
        },
      ),
      // Every value passed the check, so the filter only narrows the type.
      v.transform((values) => new Set(values.filter(isAllowed))),
    ),
  );
}

const tweetFieldsParam = listParam(
  TWEET_FIELDS,
  "Comma-separated tweet fields beyond the defaults (id, text, edit_history_tweet_ids). Fields this service holds no data for are accepted and left out.",
);

const RENDER_ENTRIES = {
  "tweet.fields": tweetFieldsParam,
  "post.fields": tweetFieldsParam,
  "user.fields": listParam(
    USER_FIELDS,
    "Comma-separated user fields beyond the defaults (id, name, username). Fields this service holds no data for are accepted and left out.",
  ),
};

const TWEET_ENTRIES = {
  expansions: listParam(
    TWEET_EXPANSIONS,
    "Related objects in includes: author_id, referenced_tweets.id(.author_id), in_reply_to_user_id, entities.mentions.username (users the world holds), attachments.media_keys; X's other names are accepted and left out.",
  ),
  "media.fields": listParam(
    MEDIA_FIELDS,
    "Media fields beyond media_key and type: url, preview_image_url, and for imported media width, height, alt_text, duration_ms where X gave them.",
  ),
  "poll.fields": listParam(POLL_FIELDS, "Accepted; this service holds no polls."),
  "place.fields": listParam(PLACE_FIELDS, "Accepted; this service holds no places."),
};

const USER_ENTRIES = {
  expansions: listParam(
    USER_EXPANSIONS,
    "pinned_tweet_id: an imported user's pinned tweet in includes.tweets, when the world holds it; the others are accepted and left out.",
  ),
};

/** The /2 parameters of each resource beyond paging: counts have no fields to choose, their buckets hold all three. */
const RESOURCE_ENTRIES = {
  tweet: { ...RENDER_ENTRIES, ...TWEET_ENTRIES },
  user: { ...RENDER_ENTRIES, ...USER_ENTRIES },
  count: {
    "search_count.fields": listParam(["end", "start", "tweet_count"], "Accepted; every bucket holds all three."),
  },
};

const tokenEntry = (other: string) =>
  v.optional(
    v.pipe(
      nextTokenParam.wrapped,
      v.description(`The previous page's meta.next_token (the same as ${other}; send one of the two).`),
    ),
  );

const TOKEN_ENTRIES = {
  pagination_token: tokenEntry("next_token"),
  next_token: tokenEntry("pagination_token"),
};

export interface RenderOptions {
  tweetFields: ReadonlySet<TweetField>;
  userFields: ReadonlySet<UserField>;
  mediaFields: ReadonlySet<MediaField>;
  expansions: ReadonlySet<Expansion>;
}

const RenderSchema = v.object({
  ...RENDER_ENTRIES,
  "media.fields": TWEET_ENTRIES["media.fields"],
  expansions: listParam([...TWEET_EXPANSIONS, ...USER_EXPANSIONS], ""),
});

/**
 * The body options of values the route's schema already accepted. An expansion shows the field its ids
 * are in, as X does, so a client can join the tweets to what it included.
 */
export function renderOptions(values: Record<string, unknown>): RenderOptions {
  const parsed = v.parse(RenderSchema, values);
  const expansions: ReadonlySet<Expansion> = parsed.expansions ?? new Set();
  const implied = [...expansions].flatMap((name) => FIELD_OF_EXPANSION[name] ?? []);
  const impliedUser = [...expansions].flatMap((name) => USER_FIELD_OF_EXPANSION[name] ?? []);
  return {
    tweetFields: new Set([...(parsed["tweet.fields"] ?? []), ...(parsed["post.fields"] ?? []), ...implied]),
    userFields: new Set([...(parsed["user.fields"] ?? []), ...impliedUser]),
    mediaFields: parsed["media.fields"] ?? new Set(),
    expansions,
  };
}

export interface V2Query {
  /** Validates the /2 parameters; its output is the /v1 entry's validated parameters. */
  schema: ParamsSchema;
  /** The /2 parameters alone, for the docs. */
  entries: v.GenericSchema;
  numeric: ReadonlySet<string>;
}

function v1Entries({ endpoint, v2 }: V2Route): v.ObjectEntries {
  const names = [...pathParamNames(v2.path), ...(v2.passThrough ?? [])];
  return Object.fromEntries(
    names.flatMap((name) => {
      const entry = endpoint.params.entries[name];
      return entry ? [[name, entry]] : [];
    }),
  );
}

export function v2Query(route: V2Route): V2Query {
  const mapping = route.v2;
  const passThrough = v1Entries(route);
  const paging = mapping.maxResults
    ? {
        max_results: v.pipe(
          integerParam(mapping.maxResults.min, mapping.maxResults.max, mapping.maxResults.fallback),
          v.description(`Items per page, ${mapping.maxResults.min} to ${mapping.maxResults.max}.`),
        ),
        ...TOKEN_ENTRIES,
      }
    : {};
  const own = { ...paging, ...RESOURCE_ENTRIES[mapping.resource] };
  const strict = (entries: v.ObjectEntries) => v.strictObject(entries, paramsIssueMessage);
  // The /v1 parameters are checked once, by the /v1 schema at the end, on their raw values.
  const unchecked = Object.fromEntries(Object.keys(passThrough).map((name) => [name, v.optional(v.unknown())]));
  const toV1 = (params: Record<string, unknown>): Record<string, unknown> => {
    const v1: Record<string, unknown> = { ...mapping.fixed };
    for (const name of Object.keys(passThrough)) if (params[name] !== undefined) v1[name] = params[name];
    const token = params.pagination_token ?? params.next_token;
    if (token !== undefined) v1.next_token = token;
    if (mapping.maxResults?.v1Param) v1[mapping.maxResults.v1Param] = params.max_results;
    return v1;
  };
  const schema = v.pipe(
    strict({ ...unchecked, ...own }),
    v.forward(
      v.check(
        (params: Record<string, unknown>) => TOKEN_PARAMS.some((name) => params[name] === undefined),
        "cannot be combined with next_token: they mean the same, send one of them",
      ),
      ["pagination_token"],
    ),
    v.transform(toV1),
    route.endpoint.params,
  );
  const entries = strict({ ...passThrough, ...own });
  return { schema, entries, numeric: numericParams(entries) };
}
