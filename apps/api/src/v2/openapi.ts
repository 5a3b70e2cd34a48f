// The /2 paths of the OpenAPI document, derived from the same routes, query schemas and body schemas
// that serve them; the cost is the /v1 counterpart's rule.
import { costRuleFor, DryRunEnvelopeSchema, describeCostRule, ERROR_STATUS } from "@social/core";
import { exampleParams } from "@social/fixtures";
import * as v from "valibot";
import { jsonSchemaOf } from "../docs/json-schema.ts";
import { controlParameters, type OpenApiPart, parameterObjects, replayedHeader } from "../docs/openapi.ts";
import { V2_ROUTES, type V2Route } from "./mapped.ts";
import { v2Query } from "./query.ts";
import { successSchema, V2ErrorSchema } from "./schemas.ts";

type Json = Record<string, unknown>;

const V2_DECISIONS = `
/2 compatibility layer (X API v2 shapes; same key, rate limits, error codes and cost as the /v1 counterpart):
- max_results: search 1-20 (default 20), user tweets and mentions 5-100 (20), followers/following 1-1000 (100) per SPEC.md; as in X API v2: quote_tweets 10-100 (10), retweeted_by and the list reads 1-100 (100). Out of range is 400.
- pagination_token and next_token are accepted on every paginated /2 path and mean the same; both at once is 400. next_token is absent on the last page and on an empty page ({"meta":{"result_count":0}}). previous_token is not issued: pages are read forward only.
- tweet.fields (or post.fields) and user.fields accept every X API v2 value; fields without data here (context_annotations, geo, ...) are left out. Imported posts and users serve what their X objects gave: cashtags and mentions by username (with the user's id once the world holds that user), attachments with X's media keys, edit_history_tweet_ids, withheld; a user's url, location, entities, pinned_tweet_id, listed_count and verified_type. Generated ones have none of those: impression_count and their listed_count read 0, their verified_type is blue or none. An unknown value is 400.
- expansions: every name X API v2 defines for the resource is accepted. Served into includes: author_id, referenced_tweets.id and referenced_tweets.id.author_id (includes.tweets, includes.users), in_reply_to_user_id, entities.mentions.username (a mention of a user the world does not hold expands to nothing), attachments.media_keys and referenced_tweets.id.attachments.media_keys (includes.media: media_key, type, url, preview_image_url, width, height, alt_text, duration_ms where held), and on user reads pinned_tweet_id (includes.tweets). Polls and places are not held: those names are accepted and left out, as are poll.fields and place.fields. An expansion adds the field its ids are in. Includes are never charged.
- Read ranges: since_id, until_id (exclusive), start_time (inclusive) and end_time (exclusive) on search and the user timelines (tweets, mentions), with pagination inside the range; meta.newest_id/oldest_id to poll from. /2/users/{id}/tweets leaves replies out, as /v1 does; exclude=retweets leaves retweets out too.
- Search takes X's operators is:retweet, is:reply, is:quote, is:verified, has:links, has:media, has:hashtags, has:mentions, conversation_id:, to:, since_id:, until_id:, with negation, and -is:nullcast; from: and to: take a username or a user id; an X operator this service does not support (place:, bio:, has:geo, has:images, ...) is 400 naming it.
- /2/users/by?usernames= (1 to 100, any case; missing ones in errors with parameter usernames) is charged as /v1/users/by-usernames. /2/users/{id}/mentions reads every author's tweets whose entities.mentions name the user by id, newest first, charged as /2/users/{id}/tweets. /2/tweets/counts/recent answers X's buckets (data[] of start, end, tweet_count, oldest first; meta.total_tweet_count) for 1 credit: granularity minute covers at most 1 day, hour (default) and day at most 7 days; buckets follow the clock's units, the first starting at start_time and the last ending at end_time; counts are not paginated (next_token is never issued, and one sent is 400); a count that would take more than its budget (500 ms of database time) is 400, saying to narrow the query or the range.
- Budget controls as on /v1: max_credits (or the X-Max-Credits header) caps a request (x-credits-capped: true when it lowered it), dry_run=true answers {"meta":{"dry_run":true,"credits":{...max, rule}}} free, Idempotency-Key replays an answered request (Idempotent-Replayed: true). A 402's details.fits names the largest request covered now in /2's parameters (max_results, ids, usernames). When max_credits covers fewer ids or usernames than were sent, the first ones are read and the rest are in neither data nor errors (x-credits-capped: true).
- Lookups by ids answer found items in data and each missing id in errors (200). A single lookup of a missing id answers 200 with errors and no data, charged 0 (as /v1's 404 is not charged). A paginated read below a missing user, tweet or list is 404.
- Errors: this service's error object plus title, detail, type, status and errors (every error, not only 400, so twitter-api-v2 keeps the body as sent).
`.trim();

const successHeaders = {
  "x-request-id": { schema: { type: "string" }, description: "Request identifier." },
  "x-credits-charged": { schema: { type: "integer" }, description: "Credits charged: the /v1 counterpart's cost." },
  "x-credits-remaining": { schema: { type: "integer" }, description: "Credits left after this request." },
  "x-credits-capped": {
    schema: { type: "string", enum: ["true"] },
    description: "max_credits lowered what this request could return.",
  },
  ...replayedHeader,
  "x-rate-limit-limit": { schema: { type: "integer" }, description: "Bucket capacity for this key." },
  "x-rate-limit-remaining": { schema: { type: "integer" }, description: "Requests left in the bucket." },
  "x-rate-limit-reset": { schema: { type: "integer" }, description: "Unix seconds when the bucket is full again." },
};

const errorSchema = jsonSchemaOf(V2ErrorSchema);
/** dry_run=true on /2: X API v2 has no data to show, so only meta, with /v1's quote. */
const dryRunSchema = jsonSchemaOf(
  v.strictObject({
    meta: v.strictObject({ dry_run: v.literal(true), credits: DryRunEnvelopeSchema.entries.meta.entries.credits }),
  }),
);

function parameters(route: V2Route): Json[] {
  return parameterObjects(route.v2.path, v2Query(route).entries, exampleParams(route.endpoint));
}

function operation(route: V2Route): Json {
  const { endpoint } = route;
  const cost = describeCostRule(costRuleFor(endpoint, { ...route.v2.fixed }));
  const paged = route.v2.maxResults ? " Paginated: pass meta.next_token as pagination_token (or next_token)." : "";
  return {
    operationId: `v2_${endpoint.id}`,
    summary: endpoint.summary,
    description: `X API v2 form of ${endpoint.path}. ${endpoint.summary}\n\nCost: ${cost} (as ${endpoint.path}).${paged}\n\n${V2_DECISIONS}`,
    tags: [endpoint.toolset],
    "x-cost": cost,
    parameters: [...parameters(route), ...controlParameters],
    responses: {
      "200": {
        description: `Success in X API v2's shape. Charged: ${cost}. With dry_run=true the answer is instead the V2DryRunQuote response (components.responses.V2DryRunQuote).`,
        headers: successHeaders,
        content: { "application/json": { schema: jsonSchemaOf(successSchema(route)) } },
      },
      ...Object.fromEntries(
        [...new Set(Object.values(ERROR_STATUS))].map((status) => [
          String(status),
          {
            description: "This service's error object with X API v2's problem members. Never charged.",
            content: { "application/json": { schema: errorSchema } },
          },
        ]),
      ),
    },
  };
}

/** The /2 paths, and the dry-run quote they answer with, named apart from the read (see DRY_RUN_POINTER). */
export function v2OpenApi(): OpenApiPart {
  return {
    paths: Object.fromEntries(V2_ROUTES.map((route) => [route.v2.path, { get: operation(route) }])),
    schemas: { V2DryRunQuote: dryRunSchema },
    responses: {
      V2DryRunQuote: {
        description:
          "The answer of any /2 read sent with dry_run=true, status 200: only meta, nothing charged, and /v1's quote in meta.credits.",
        content: { "application/json": { schema: { $ref: "#/components/schemas/V2DryRunQuote" } } },
      },
    },
  };
}
