// The /2 surface, derived from the catalogue entries' /2 mappings: each route runs its /v1 entry through
// the shared pipeline (same authentication, rate limits, validation order and cost) with its own query
// schema and author expansions, and answers in X API v2's shape.
import {
  ApiError,
  askedValues,
  bearerKey,
  type Credits,
  calledAs,
  decodeParams,
  executeRead,
  type FewerItems,
  MAX_CREDITS_HEADER,
  rateHeaders,
  rateLimitError,
  requestTarget,
  takeQueryControls,
} from "@social/core";
import { Elysia } from "elysia";
import type { HttpContext } from "../http/context.ts";
import { answerToStore, json, jsonText, replayResponse } from "../http/respond.ts";
import { idempotencyOf, pathEntriesOf, refuseMethods, routerPath } from "../v1/routes.ts";
import { notFoundError, type Requested, successBody, v2Items } from "./body.ts";
import { V2_ROUTES, type V2Route } from "./mapped.ts";
import { problemResponse, type RawValues } from "./problem.ts";
import { renderOptions, v2Query } from "./query.ts";

/** The page size a /2 read asks for when max_results does not map onto a /v1 parameter. */
function pageSizeOf(route: V2Route, values: Record<string, unknown>): number | undefined {
  const bounds = route.v2.maxResults;
  if (!bounds || bounds.v1Param) return undefined;
  return typeof values.max_results === "number" ? values.max_results : bounds.fallback;
}

/** The distinct values a lookup by a list asks for, in the order sent (as the /v1 parameter reads them). */
function requestedOf(route: V2Route, values: Record<string, unknown>): Requested | undefined {
  const parameter = route.lookupList;
  const sent = parameter === undefined ? undefined : values[parameter];
  if (parameter === undefined || typeof sent !== "string") return undefined;
  return { parameter, values: askedValues(parameter, sent) };
}

/** A 402's smaller request in /2's own parameters: fewer ids or usernames, or a smaller max_results within its bounds. */
function fewerItemsOf(route: V2Route, values: Record<string, unknown>): FewerItems {
  return (items): Record<string, number> | undefined => {
    const requested = requestedOf(route, values);
    if (requested) return { [requested.parameter]: Math.min(items, requested.values.length) };
    const bounds = route.v2.maxResults;
    if (!bounds) return undefined;
    const asked = typeof values.max_results === "number" ? values.max_results : bounds.fallback;
    const fit = Math.min(items, asked);
    return fit >= bounds.min ? { max_results: fit } : undefined;
  };
}

/** The pipeline knows the token as next_token; a client that sent pagination_token reads that name back. */
function namedAsSent(error: ApiError, query: URLSearchParams): ApiError {
  if (!error.details || !query.has("pagination_token")) return error;
  const details = error.details.map((detail) =>
    detail.parameter === "next_token" ? { ...detail, parameter: "pagination_token" } : detail,
  );
  return new ApiError(error.code, error.message, { details });
}

function creditHeaders(credits: Credits): Record<string, string> {
  return {
    "x-credits-charged": String(credits.charged),
    "x-credits-remaining": String(credits.remaining),
    ...(credits.capped ? { "x-credits-capped": "true" } : {}),
  };
}

export function v2Routes(context: HttpContext) {
  const routes = new Elysia({ name: "v2" }).use(context);
  for (const route of V2_ROUTES) {
    const path = routerPath(route.v2.path);
    const query = v2Query(route);
    const refuse = refuseMethods(route.v2.path);
    const pathEntries = pathEntriesOf(route.v2.path);
    // HEAD is refused like /v1's: it would bill a read whose answer the client never sees.
    routes.head(path, refuse);
    routes.get(
      path,
      async ({ request, params, requestId, receivedAt, usage, delivery, anonymousRate, services, helpLinks }) => {
        const target = requestTarget(request.url);
        const inPath = pathEntries(params, target.path);
        // The controls are /v1's (max_credits, dry_run), and the header for code that cannot add parameters.
        const controls = takeQueryControls(target.query, request.headers.get(MAX_CREDITS_HEADER));
        const { values, repeated } = decodeParams([...controls.entries, ...inPath], query.numeric);
        const pageSize = pageSizeOf(route, values);
        // Read once, and only after the pipeline has validated the values it reads.
        let rendering: ReturnType<typeof renderOptions> | undefined;
        const options = () => {
          rendering ??= renderOptions(values);
          return rendering;
        };
        const outcome = await executeRead(services, {
          endpoint: route.endpoint,
          paramsSchema: query.schema,
          enrich: (store, data) => v2Items(store, route.v2, data, options()),
          params: values,
          repeated: [...repeated, ...controls.repeated],
          controls: controls.controls,
          fewerItems: fewerItemsOf(route, values),
          // A single lookup's missing id is X API v2's 200 with `errors` (below); the log says so too.
          answeredAs: (error) => (route.lookupParam && error.code === "endpoint_not_found" ? 200 : error.status),
          ...idempotencyOf(request, "v2"),
          apiKey: bearerKey(request),
          requestId,
          receivedAt,
          call: calledAs(request.url),
          signal: delivery.signal,
          ...(pageSize === undefined ? {} : { pageSize }),
        });
        const rate = outcome.rate ?? (await anonymousRate());
        const headers = { "x-request-id": requestId, ...rateHeaders(rate) };
        if (!outcome.ok) {
          const error = rate.allowed ? outcome.error : rateLimitError(rate);
          if (route.lookupParam && error.code === "endpoint_not_found" && outcome.credits) {
            // Not charged, as /v1 does not charge its 404; X API v2's 200 keeps v2 clients' handling.
            const value = String(values[route.lookupParam]);
            const body = { errors: [notFoundError(route.v2.resource, route.lookupParam, value)] };
            return json(body, 200, { ...headers, ...creditHeaders(outcome.credits) });
          }
          const rawValues: RawValues = (name) => {
            const given = inPath.find(([pathName]) => pathName === name);
            return given ? [given[1]] : target.query.getAll(name);
          };
          return problemResponse(namedAsSent(error, target.query), requestId, helpLinks, rawValues, headers);
        }
        if (outcome.replay) return replayResponse(outcome.replay, headers);
        // A quote: no data, so none of X API v2's members but meta.
        if (outcome.dryRun) {
          return json({ meta: { dry_run: true, credits: outcome.credits } }, 200, {
            ...headers,
            ...creditHeaders(outcome.credits),
          });
        }
        usage.credits = outcome.credits.charged;
        // Values past what max_credits covered were not read, so they are not reported as missing either.
        const requested = requestedOf(route, values);
        const page = {
          ...(outcome.nextToken ? { nextToken: outcome.nextToken } : {}),
          ...(requested ? { requested: { ...requested, values: requested.values.slice(0, outcome.maxItems) } } : {}),
        };
        const body = JSON.stringify(successBody(route, outcome.enriched, page, options()));
        await outcome.remember?.(answerToStore(body, requestId, creditHeaders(outcome.credits)));
        return jsonText(body, 200, { ...headers, ...creditHeaders(outcome.credits) });
      },
    );
    routes.all(path, refuse);
  }
  return routes;
}
