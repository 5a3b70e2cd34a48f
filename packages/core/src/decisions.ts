// The decisions this API makes on the points SPEC.md leaves open, written once and built from the
// constants that enforce them, so the published text cannot drift from the behaviour. The OpenAPI
// description and the /docs page render this list; the README points to /docs.
import { costOf, describeEndpointCost, PER_50_ITEMS } from "./billing/costs.ts";
import {
  type EndpointId,
  endpointsById,
  PAGE_SIZE,
  THREAD_MAX_TWEETS,
  WORKFLOW_SECTION_SIZE,
} from "./catalogue/index.ts";
import type { Endpoint } from "./endpoint.ts";
import { MAX_IDS } from "./params.ts";
import { DEFAULT_SEARCH_LIMITS } from "./search/limits.ts";
import { SEARCH_QUERY_LIMITS } from "./search/parse.ts";
import { DEFAULT_RATE_LIMIT } from "./services.ts";

/** One decision: its topic and what was decided, in Markdown with code spans only. */
export interface Decision {
  topic: string;
  text: string;
}

/** The HTTP host's own limits, which the host defines and the decisions quote. */
export interface HttpLimits {
  maxUrlLength: number;
  maxBodyBytes: number;
}

function number(value: number): string {
  return value.toLocaleString("en-US");
}

function endpoint(id: EndpointId): Endpoint {
  const found = endpointsById.get(id);
  if (!found) throw new Error(`${id} is missing from endpointsById`);
  return found;
}

export function openPointDecisions(http: HttpLimits): Decision[] {
  const search = DEFAULT_SEARCH_LIMITS;
  const query = SEARCH_QUERY_LIMITS;
  const rate = DEFAULT_RATE_LIMIT;
  const communitiesSearch = endpoint("communities_search");
  const trends = endpoint("trends");
  return [
    {
      topic: "Errors",
      text: '`{"error": {"code", "message", "request_id", "details"?, "help_url"?}}`; on 400 `details` names each parameter and the rule it broke; on 402 it is an object a program can act on, `{"reason": "balance", "required", "remaining", "fits"?}`, where `fits` is the largest request like this one that the balance covers now (`{"limit": 4}` or `{"ids": 2}`; absent when no smaller request fits, and on `/2`, whose parameters have other names); `help_url` only on 402: the billing page, or for `key_limit` the dashboard page of the key whose limit refused. Every answer carries `x-request-id` equal to the body\'s request id.',
    },
    {
      topic: "Page sizes",
      text: `endpoints without \`limit\` return pages of ${PAGE_SIZE}; \`limit\` is refused there (400).`,
    },
    {
      topic: "ids lists (`/v1/users`, `/v1/tweets`)",
      text: `1 to ${MAX_IDS} ids; repeated ids answered once; ids not found left out.`,
    },
    {
      topic: "Forbidden combinations",
      text: "`limit` with `mode=profiles`, and `time_filter` with a sort other than `likes`, are 400 `invalid_request`.",
    },
    {
      topic: "Unknown or repeated query parameters",
      text: "400 `invalid_request`, whatever the name (`__proto__`, `constructor` and the other names of `Object.prototype` included); a missing required one is 400 too, its detail saying it `is required`.",
    },
    {
      topic: '"1 per 50 items" rounds up',
      text: `1–50 items cost ${costOf(PER_50_ITEMS, 50)} credits, 51–100 cost ${costOf(PER_50_ITEMS, 100)}; an empty page costs the base ${costOf(PER_50_ITEMS, 0)}.`,
    },
    {
      topic: "Workflow items",
      text: `thread → its tweets (at most ${THREAD_MAX_TWEETS}; \`complete: false\` when cut); profile → \`recent_tweets\` (${WORKFLOW_SECTION_SIZE}); tweet context → quotes (${WORKFLOW_SECTION_SIZE}) + retweeters (${WORKFLOW_SECTION_SIZE}). The base credit covers the user, the tweet and its author.`,
    },
    {
      topic: `\`${communitiesSearch.path}\``,
      text: `an array of Community objects, ${PAGE_SIZE} per page; ${describeEndpointCost(communitiesSearch)}.`,
    },
    {
      topic: `\`${trends.path}\``,
      text: `an array of \`{woeid, rank, name, query, tweet_count}\`; ${describeEndpointCost(trends)}; unknown woeid → 404.`,
    },
    {
      topic: "Search operators",
      text: `a bare word matches whole tokens, case- and accent-insensitively; \`#ai\` and \`ai\` are different tokens; \`until:\` is exclusive; a query may be negations only; at most ${number(query.maxLength)} characters, ${query.maxLeaves} terms and ${query.maxDepth} levels of nesting. \`sort_order=relevancy\` ranks the newest ${number(search.relevancyCandidates)} matches of the query's words by how well their text matches (ties newest first); the rest of the search language still filters them.`,
    },
    {
      topic: "Bounded searches",
      text: `a search may spend ${search.budgetMs} ms of database time. One that has not filled its page by then (negations and numeric filters alone, for example) is 400 \`invalid_request\`, uncharged, with a message that says how to narrow it (a positive word, \`#hashtag\`, \`from:\`, \`lang:\`, or a \`since:\`/\`until:\` range); on the default world every query fits. A count (\`/v1/search/counts\`) visits every match of its window, so it may spend ${search.countBudgetMs} ms, and past that is the same 400, saying to narrow the query or count a shorter range. Only the time the read's own statements take counts: one the database keeps waiting (for a connection, or for a lock another operation such as a \`REINDEX\` holds) answers as usual once it may go on, or after ${search.waitMs} ms is 503 \`service_unavailable\` with \`Retry-After\`, uncharged; so is a search that finds more than ${search.maxWaiting} search steps already waiting for the database.`,
    },
    {
      topic: "`next_token`",
      text: "an HMAC-signed keyset cursor bound to the endpoint and its parameters (all but `limit`); a changed, truncated or foreign token is 400.",
    },
    {
      topic: "Rate limits",
      text: `a token bucket per key (by default ${rate.ratePerSecond} requests per second, bursts of ${rate.burst}; a server's operator may set others, and \`x-rate-limit-limit\` shows the bucket that applies to you); requests without a valid key are counted per client address. Every answer of a \`/v1\` endpoint has \`x-rate-limit-limit\`, \`x-rate-limit-remaining\`, \`x-rate-limit-reset\` (Unix seconds); 429 adds \`Retry-After\`. Rate limiting runs right after authentication, so invalid requests count too.`,
    },
    {
      topic: "Unpaid work",
      text: "a key whose account cannot pay even a request's base cost gets its 402 before any read is made. Nobody pays for an answer they did not receive: a request whose client closed the connection before the answer was written is not charged, or is refunded (a grant naming the request id).",
    },
    {
      topic: "`meta.credits.remaining`",
      text: "the account's balance after the request's charge, as the charge read it. Where a server runs several processes on one PostgreSQL database, requests charged to the same account at the same moment by another process may not be subtracted from it yet; the charge itself, every 402 and the balance the account shows are exact.",
    },
    {
      topic: "Other methods",
      text: "on a known path, HEAD included (it would bill a read whose answer is never seen): 404 `endpoint_not_found` with `Allow: GET`.",
    },
    {
      topic: "Oversized requests",
      text: `URLs over ${number(http.maxUrlLength)} characters and request bodies over ${number(http.maxBodyBytes / 1024)} KiB are 400.`,
    },
    {
      topic: "Host header",
      text: "one that cannot be part of a URL (a space, a slash, `@`, non-ASCII; none on HTTP/1.0) is 400 `invalid_request`, as are `CONNECT` requests; any other Host is served, never parsed.",
    },
    {
      topic: "Demo",
      text: "`meta.credits` is `{charged: 0, remaining: 0}`: no account is involved.",
    },
    {
      topic: "Request ids (`meta.request_id`, `x-request-id`)",
      text: "`req_` and a UUIDv7 in 32 hex digits, so they sort by time.",
    },
    {
      topic: "Protected accounts",
      text: "as on X, their tweets are for their followers, and this API reads as an app that follows nobody: they are left out of search, timelines (a protected user's are empty pages), conversations, threads, quotes, retweeters, list and community tweets, and the workflows built on them. A lookup by id answers such a tweet (or its article) as missing, 404 or left out of `ids`, since the API has no authorization error. The accounts themselves (profiles, follower and member lists) stay visible.",
    },
  ];
}

/** The decisions as a Markdown list (OpenAPI descriptions are CommonMark). */
export function decisionsMarkdown(decisions: readonly Decision[]): string {
  return decisions.map(({ topic, text }) => `- **${topic}:** ${text}`).join("\n");
}
