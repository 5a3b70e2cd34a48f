// The /v1 surface, derived from the catalogue: one GET route per entry; every other method on a known
// path is answered in the error envelope.
import {
  ApiError,
  bearerKey,
  calledAs,
  catalogue,
  decodeParams,
  executeRead,
  IDEMPOTENCY_HEADER,
  MAX_CREDITS_HEADER,
  numericParams,
  rateHeaders,
  rateLimitError,
  requestTarget,
  successEnvelopeText,
  takeQueryControls,
} from "@social/core";
import { type Context, Elysia } from "elysia";
import type { HttpContext } from "../http/context.ts";
import { answerToStore, errorResponse, jsonText, replayResponse } from "../http/respond.ts";

/** `/v1/users/{id}` → `/v1/users/:id`. */
export function routerPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ":$1");
}

/**
 * The path parameters of `template` (`/v1/users/{id}`), found once per route: what reads them per
 * request takes each as the router matched it, or raw from the path when it failed percent-decoding.
 */
export function pathEntriesOf(template: string) {
  const named = template.split("/").flatMap((segment, index): [string, number][] => {
    const name = segment.match(/^\{(\w+)\}$/)?.[1];
    return name ? [[name, index]] : [];
  });
  return (params: Record<string, string | null | undefined>, path: string): [string, string][] =>
    named.map(([name, index]) => [name, params[name] ?? path.split("/")[index] ?? ""]);
}

/**
 * The handler of every method but GET on a known path. HEAD too: it would run (and bill) the read
 * while the client could not see the charge, and every operation of this API is a GET.
 */
export function refuseMethods(path: string) {
  return ({ request, set }: Pick<Context, "request" | "set">): never => {
    set.headers.allow = "GET";
    throw new ApiError(
      "endpoint_not_found",
      `${request.method} is not supported on ${path}: this API is read-only and answers GET only`,
    );
  };
}

/** The Idempotency-Key a request sent, for the pipeline to check and honour. */
export function idempotencyOf(
  request: Request,
  surface: "v1" | "v2",
): { idempotency?: { key: string; surface: "v1" | "v2" } } {
  const key = request.headers.get(IDEMPOTENCY_HEADER);
  return key === null ? {} : { idempotency: { key, surface } };
}

export function v1Routes(context: HttpContext) {
  const routes = new Elysia({ name: "v1" }).use(context);
  for (const endpoint of catalogue) {
    const path = routerPath(endpoint.path);
    const numeric = numericParams(endpoint.params);
    const refuse = refuseMethods(endpoint.path);
    const pathEntries = pathEntriesOf(endpoint.path);
    routes.head(path, refuse);
    routes.get(
      path,
      async ({ request, params, requestId, receivedAt, usage, delivery, anonymousRate, services, helpLinks }) => {
        const target = requestTarget(request.url);
        const query = takeQueryControls(target.query, request.headers.get(MAX_CREDITS_HEADER));
        const { values, repeated } = decodeParams([...query.entries, ...pathEntries(params, target.path)], numeric);
        const outcome = await executeRead(services, {
          endpoint,
          params: values,
          repeated: [...repeated, ...query.repeated],
          controls: query.controls,
          ...idempotencyOf(request, "v1"),
          apiKey: bearerKey(request),
          requestId,
          receivedAt,
          call: calledAs(request.url),
          signal: delivery.signal,
        });
        const rate = outcome.rate ?? (await anonymousRate());
        const headers = { "x-request-id": requestId, ...rateHeaders(rate) };
        if (!outcome.ok) {
          return errorResponse(rate.allowed ? outcome.error : rateLimitError(rate), requestId, helpLinks, headers);
        }
        if (outcome.replay) return replayResponse(outcome.replay, headers);
        usage.credits = outcome.credits.charged;
        const body = successEnvelopeText(outcome.data, requestId, outcome.credits, outcome.nextToken, outcome.dryRun);
        await outcome.remember?.(answerToStore(body, requestId));
        return jsonText(body, 200, headers);
      },
    );
    routes.all(path, refuse);
  }
  return routes;
}
