// The OpenAPI 3.1 description, generated from the catalogue once at start-up: every path, parameter
// (with its bounds), response shape and cost, the error envelope, the bearer scheme, and examples
// taken from the fixture world's stable ids.
import {
  catalogue,
  describeEndpointCost,
  type Endpoint,
  ERROR_STATUS,
  ErrorEnvelopeSchema,
  pathParamNames,
  successEnvelopeSchema,
} from "@social/core";
import { examples } from "@social/fixtures";
import { DEFAULT_SEARCH_LIMITS } from "@social/store-sqlite";
import type * as v from "valibot";
import { entrySchemas, jsonSchemaOf } from "./json-schema.ts";

type Json = Record<string, unknown>;

export const API_VERSION = "1.0.0";

const DECISIONS = `
Decisions for the points SPEC.md leaves open:
- Pages without a limit parameter hold 20 items; limit is refused (400) on those endpoints.
- ids lists (/v1/users, /v1/tweets) hold 1 to 100 ids; repeated ids are answered once; ids not found are left out.
- limit with mode=profiles, and time_filter with a sort other than likes, are 400 invalid_request.
- "1 per 50 items" rounds up: 1-50 ids cost 1 + 1, 51-100 cost 1 + 2, an empty page costs 1.
- Workflow items: thread = its tweets; profile = recent_tweets; tweet context = quotes + retweeters.
- /v1/communities/search returns Community objects (1 + 1 per community); /v1/trends returns Trend objects (flat 1).
- next_token is bound to the endpoint and its parameters (except limit); any change makes it invalid (400).
- Unknown or repeated query parameters are 400 invalid_request.
- Rate limits: a token bucket per API key (RATE_LIMIT_RPS, RATE_LIMIT_BURST; defaults 20/s, burst 40); requests without a valid key are counted per client address. Every /v1 answer carries x-rate-limit-limit, x-rate-limit-remaining and x-rate-limit-reset (Unix seconds); 429 carries Retry-After.
- Methods other than GET (HEAD included) on a known path are 404 endpoint_not_found with Allow: GET.
- Request ids (meta.request_id, x-request-id) are req_ and a UUIDv7 in 32 hex digits: they sort by time.
- Search work is bounded: a search may spend ${DEFAULT_SEARCH_LIMITS.budgetMs} ms of database time; one that has not filled its page by then (for example negations and numeric filters alone) is 400 invalid_request, uncharged, saying how to narrow it. sort_order=relevancy ranks the newest ${DEFAULT_SEARCH_LIMITS.relevancyCandidates} matches of the query's words. When searches queue up past capacity the answer is 503 with Retry-After, uncharged.
- A request whose balance cannot cover its base cost is 402 before any work is done.
- Nobody pays for an answer they did not receive: a request whose client closed the connection is not charged, or is refunded (a grant naming the request id).
- Protected accounts' tweets are left out of search, timelines, conversations, threads, quotes, retweeters, list and community tweets; a lookup of one by id answers it as missing.
`.trim();

const EXAMPLE_VALUES: Record<string, () => string> = {
  id: () => examples.user_id,
  username: () => examples.username,
  query: () => examples.search_query,
  ids: () => `${examples.user_id}`,
  source: () => examples.source_username,
  target: () => examples.target_username,
  woeid: () => examples.woeid,
};

/** The fixture id that makes an example request of this endpoint succeed. */
export function exampleParams(endpoint: Endpoint): Record<string, string> {
  const idFor: Record<string, string> = {
    tweet: examples.tweet_id,
    tweets: `${examples.tweet_id},${examples.quoted_tweet_id}`,
    tweet_quotes: examples.quoted_tweet_id,
    tweet_retweeters: examples.quoted_tweet_id,
    tweet_article: examples.article_tweet_id,
    tweet_conversation: examples.thread_tweet_id,
    tweet_thread: examples.thread_tweet_id,
    tweet_context: examples.quoted_tweet_id,
    user_media: examples.media_user_id,
    list_tweets: examples.list_id,
    list_members: examples.list_id,
    list_subscribers: examples.list_id,
    community: examples.community_id,
    community_members: examples.community_id,
    community_moderators: examples.community_id,
    community_tweets: examples.community_id,
  };
  const params: Record<string, string> = {};
  for (const [name, , required] of entrySchemas(endpoint.params)) {
    if (!required) continue;
    if (name === "id" && idFor[endpoint.id]) params.id = idFor[endpoint.id] as string;
    else if (name === "ids" && idFor[endpoint.id]) params.ids = idFor[endpoint.id] as string;
    else if (endpoint.id === "communities_search" && name === "query") params.query = examples.community_query;
    else params[name] = EXAMPLE_VALUES[name]?.() ?? "";
  }
  return params;
}

/** OpenAPI parameter objects for a path and the object schema of its parameters (path and query). */
export function parameterObjects(path: string, params: v.GenericSchema, example: Record<string, string>): Json[] {
  const inPath = new Set(pathParamNames(path));
  return entrySchemas(params).map(([name, schema, required]) => ({
    name,
    in: inPath.has(name) ? "path" : "query",
    required: inPath.has(name) || required,
    schema,
    ...(typeof schema.description === "string" ? { description: schema.description } : {}),
    ...(example[name] ? { example: example[name] } : {}),
  }));
}

const errorResponseRef = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } },
});

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: "invalid_request: a parameter broke a rule (details name it). Never charged.",
  401: "invalid_api_key or revoked_api_key. Never charged.",
  402: "insufficient_credits: the balance does not cover this request's cost; help_url links to billing. Never charged.",
  404: "endpoint_not_found: no such resource or endpoint. Never charged.",
  429: "rate_limited: retry after the Retry-After header's seconds. Never charged.",
  500: "internal_error. Never charged.",
  503: "service_unavailable: the database cannot be reached; retry later. Never charged.",
};

const rateLimitHeaders = {
  "x-request-id": { schema: { type: "string" }, description: "Equal to meta.request_id." },
  "x-rate-limit-limit": { schema: { type: "integer" }, description: "Bucket capacity for this key." },
  "x-rate-limit-remaining": { schema: { type: "integer" }, description: "Requests left in the bucket." },
  "x-rate-limit-reset": { schema: { type: "integer" }, description: "Unix seconds when the bucket is full again." },
};

function operation(endpoint: Endpoint): Json {
  const paged = endpoint.pageSize ? " Paginated: pass meta.pagination.next_token as next_token for the next page." : "";
  return {
    operationId: endpoint.id,
    summary: endpoint.summary,
    description: `${endpoint.summary} ${endpoint.guidance}\n\nCost: ${describeEndpointCost(endpoint)}.${paged}`,
    tags: [endpoint.toolset],
    "x-cost": describeEndpointCost(endpoint),
    parameters: parameterObjects(endpoint.path, endpoint.params, exampleParams(endpoint)),
    responses: {
      "200": {
        description: `Success. Charged: ${describeEndpointCost(endpoint)}.`,
        headers: rateLimitHeaders,
        content: { "application/json": { schema: jsonSchemaOf(successEnvelopeSchema(endpoint.data)) } },
      },
      ...Object.fromEntries(
        [...new Set(Object.values(ERROR_STATUS))].map((status) => [
          String(status),
          errorResponseRef(ERROR_DESCRIPTIONS[status] ?? ""),
        ]),
      ),
    },
  };
}

export interface ExtraPaths {
  [path: string]: Json;
}

export function buildOpenApi(serverUrl: string, extraPaths: ExtraPaths = {}): Json {
  const paths: Record<string, Json> = {};
  for (const endpoint of catalogue) paths[endpoint.path] = { get: operation(endpoint) };
  return {
    openapi: "3.1.0",
    info: {
      title: "Social Data API",
      version: API_VERSION,
      description: `A paid, read-only API over public social data. Every request is billed in credits; responses carry the charge and the remaining balance in meta.credits. New accounts receive 1000 credits.\n\n${DECISIONS}`,
    },
    servers: [{ url: serverUrl }],
    security: [{ bearerAuth: [] }],
    tags: [...new Set(catalogue.map((e) => e.toolset))].map((name) => ({ name })),
    paths: { ...paths, ...extraPaths },
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "Authorization: Bearer <API_KEY>" },
      },
      schemas: { ErrorEnvelope: jsonSchemaOf(ErrorEnvelopeSchema) },
    },
  };
}
