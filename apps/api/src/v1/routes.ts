// The /v1 surface, derived from the catalogue: one GET route per entry; every other method on a known
// path is answered in the error envelope.
import {
  ApiError,
  bearerKey,
  catalogue,
  decodeParams,
  type Endpoint,
  executeRead,
  numericParams,
  type RateState,
  rateHeaders,
  rateLimitError,
  requestTarget,
  type Services,
  successEnvelopeText,
} from "@social/core";
import type { Elysia } from "elysia";
import { errorResponse, jsonText } from "../http/respond.ts";

export interface RouteContext {
  services: Services;
  helpUrl: string;
  /** Ends a request: logs it and returns the response. */
  finish(request: Request, response: Response, credits?: number): Response;
  requestId(request: Request): string;
  /** Turns a thrown non-API error into 500 or 503, logged with the request id. */
  failure(request: Request, error: unknown): Response;
  /**
   * The rate-limit state of a caller without a valid key, counted per client address, so that key
   * guessing is throttled too and every /v1 answer carries rate-limit headers.
   */
  anonymousRate(request: Request): RateState;
}

/** `/v1/users/{id}` → `/v1/users/:id`. */
export function routerPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ":$1");
}

/** Path parameters as the router matched them; one that failed percent-decoding is kept raw. */
export function pathEntries(params: Record<string, string | null | undefined>, path: string, template: string) {
  const raw = path.split("/");
  const names = template.split("/");
  return names.flatMap((segment, index): [string, string][] => {
    const name = segment.match(/^\{(\w+)\}$/)?.[1];
    return name ? [[name, params[name] ?? raw[index] ?? ""]] : [];
  });
}

export function methodNotAllowed(request: Request, path: string): ApiError {
  return new ApiError(
    "endpoint_not_found",
    `${request.method} is not supported on ${path}: this API is read-only and answers GET only`,
  );
}

function readHandler(endpoint: Endpoint, context: RouteContext) {
  const numeric = numericParams(endpoint.params);
  return async ({ request, params }: { request: Request; params: Record<string, string | null | undefined> }) => {
    const requestId = context.requestId(request);
    try {
      const target = requestTarget(request.url);
      const { values, repeated } = decodeParams(
        [...target.query, ...pathEntries(params, target.path, endpoint.path)],
        numeric,
      );
      const outcome = await executeRead(context.services, {
        endpoint,
        params: values,
        repeated,
        apiKey: bearerKey(request),
        requestId,
        signal: request.signal,
      });
      const rate = outcome.rate ?? context.anonymousRate(request);
      const headers = { "x-request-id": requestId, ...rateHeaders(rate) };
      if (!outcome.ok) {
        const error = rate.allowed ? outcome.error : rateLimitError(rate);
        return context.finish(request, errorResponse(error, requestId, context.helpUrl, headers));
      }
      const body = successEnvelopeText(outcome.data, requestId, outcome.credits, outcome.nextToken);
      return context.finish(request, jsonText(body, 200, headers), outcome.credits.charged);
    } catch (error) {
      return context.failure(request, error);
    }
  };
}

/**
 * Every method but GET is refused in the envelope. HEAD too: it would run (and bill) the read while
 * the client could not see the charge, and every operation of this API is a GET.
 */
export function registerV1Routes(app: Elysia, context: RouteContext): void {
  for (const endpoint of catalogue) {
    const path = routerPath(endpoint.path);
    const refuse = ({ request }: { request: Request }) =>
      context.finish(
        request,
        errorResponse(methodNotAllowed(request, endpoint.path), context.requestId(request), context.helpUrl, {
          allow: "GET",
        }),
      );
    app.head(path, refuse);
    app.get(path, readHandler(endpoint, context));
    app.all(path, refuse);
  }
}
