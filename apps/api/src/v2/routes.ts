// The /2 surface, derived from the catalogue's v2Path entries: each route runs its /v1 entry through the
// shared pipeline (same authentication, rate limits, validation order and cost) and answers in X API
// v2's shape.
import {
  ApiError,
  bearerKey,
  decodeParams,
  type Endpoint,
  executeRead,
  hashApiKey,
  type ReadOutcome,
  rateHeaders,
  rateLimitError,
  requestPath,
  requestTarget,
  type Services,
  type User,
} from "@social/core";
import type { Elysia } from "elysia";
import { json } from "../http/respond.ts";

import { methodNotAllowed, pathEntries, type RouteContext, routerPath } from "../v1/routes.ts";
import { expandedAuthors, notFoundError, successBody } from "./body.ts";
import { asProblem, problemResponse, type RawValues } from "./problem.ts";
import { type RenderOptions, renderOptions, v2Query } from "./query.ts";
import { type V2Route, v2Routes } from "./rules.ts";

type Handler = (input: { request: Request; params: Record<string, string | null | undefined> }) => Promise<Response>;

/** The page size a /2 read asks for when max_results does not map onto a /v1 parameter. */
function pageSizeOf(route: V2Route, values: Record<string, unknown>): number | undefined {
  const bounds = route.rule.maxResults;
  if (!bounds || bounds.v1Param) return undefined;
  return typeof values.max_results === "number" ? values.max_results : bounds.fallback;
}

/** A lookup of one id or username: X API v2 answers a missing one with 200 and `errors`. */
function singleLookupParam(route: V2Route): string | undefined {
  const [name, ...others] = route.path.match(/\{(\w+)\}/g) ?? [];
  return !route.rule.maxResults && name && others.length === 0 ? name.slice(1, -1) : undefined;
}

async function remainingCredits(services: Services, apiKey: string | undefined): Promise<number> {
  const check = apiKey ? await services.ledger.checkKey(await hashApiKey(apiKey)) : undefined;
  return check?.status === "active" ? check.balance : 0;
}

function v2Handler(route: V2Route, context: RouteContext): Handler {
  const query = v2Query(route);
  const lookupParam = singleLookupParam(route);
  /** The /v1 read with the /2 parameters, and the author expansion read inside it, before the charge. */
  const endpointFor = (options: () => RenderOptions): Endpoint => ({
    ...route.endpoint,
    params: query.schema,
    async run(context) {
      const result = await route.endpoint.run(context);
      const authors = await expandedAuthors(context.store, result.data, route.rule.resource, options());
      return { ...result, data: { read: result.data, authors } };
    },
  });

  return async ({ request, params }) => {
    const requestId = context.requestId(request);
    const target = requestTarget(request.url);
    const path = pathEntries(params, target.path, route.path);
    const rawValues: RawValues = (name) => {
      const inPath = path.find(([pathName]) => pathName === name);
      return inPath ? [inPath[1]] : target.query.getAll(name);
    };
    try {
      const { values, repeated } = decodeParams([...target.query, ...path], query.numeric);
      const apiKey = bearerKey(request);
      const pageSize = pageSizeOf(route, values);
      const outcome: ReadOutcome = await executeRead(context.services, {
        endpoint: endpointFor(() => renderOptions(values)),
        params: values,
        repeated,
        apiKey,
        requestId,
        signal: request.signal,
        ...(pageSize === undefined ? {} : { pageSize }),
      });
      const rate = outcome.rate ?? context.anonymousRate(request);
      const headers = { "x-request-id": requestId, ...rateHeaders(rate) };
      if (!outcome.ok) {
        const error = rate.allowed ? outcome.error : rateLimitError(rate);
        if (lookupParam && error.code === "endpoint_not_found") {
          // Not charged, as /v1 does not charge its 404; X API v2's 200 keeps v2 clients' handling.
          const value = String(values[lookupParam]);
          const credits = { charged: 0, remaining: await remainingCredits(context.services, apiKey) };
          const body = { errors: [notFoundError(route.rule.resource, lookupParam, value)] };
          return context.finish(request, json(body, 200, { ...headers, ...creditHeaders(credits) }));
        }
        const named = namedAsSent(error, target.query);
        return context.finish(request, problemResponse(named, requestId, context.helpUrl, rawValues, headers));
      }
      const ids = route.rule.passThrough?.includes("ids") ? [...new Set(String(values.ids).split(","))] : undefined;
      const { read, authors } = outcome.data as { read: unknown; authors: User[] };
      const body = successBody(
        route,
        { data: read, authors, ...(outcome.nextToken ? { nextToken: outcome.nextToken } : {}), requestedIds: ids },
        renderOptions(values),
      );
      return context.finish(
        request,
        json(body, 200, { ...headers, ...creditHeaders(outcome.credits) }),
        outcome.credits.charged,
      );
    } catch (error) {
      return asProblem(context.failure(request, error), context.helpUrl);
    }
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

function creditHeaders(credits: { charged: number; remaining: number }): Record<string, string> {
  return { "x-credits-charged": String(credits.charged), "x-credits-remaining": String(credits.remaining) };
}

function refusal(context: RouteContext, error: (request: Request) => ApiError, headers: Record<string, string> = {}) {
  return ({ request }: { request: Request }) =>
    context.finish(
      request,
      problemResponse(error(request), context.requestId(request), context.helpUrl, () => [], headers),
    );
}

export function registerV2Routes(app: Elysia, context: RouteContext): void {
  for (const route of v2Routes()) {
    const path = routerPath(route.path);
    const refuse = refusal(context, (request) => methodNotAllowed(request, route.path), { allow: "GET" });
    // HEAD is refused like /v1's: it would bill a read whose answer the client never sees.
    app.head(path, refuse);
    app.get(path, v2Handler(route, context));
    app.all(path, refuse);
  }
  app.all(
    "/2/*",
    refusal(
      context,
      (request) => new ApiError("endpoint_not_found", `No endpoint at ${requestPath(request.url)}: see /openapi.json`),
    ),
  );
}
