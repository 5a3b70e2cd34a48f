// What every route of the app shares, as one Elysia plugin: the services, a request id, the anonymous
// rate and the answer's delivery on the context, errors rendered in the envelope (or as /2 problems
// under /2/), and the request log written after every answer. Routes only return answers: none of
// them can skip the log line, the request id or the last look at the connection (see delivery.ts).
import { ApiError, type HelpLinks, newRequestId, type RateState, requestPath, type Services } from "@social/core";
import { Elysia } from "elysia";
import { problemResponse } from "../v2/problem.ts";
import { unreadable } from "./admission.ts";
import { AnswerDelivery } from "./delivery.ts";
import { type LogSink, type RequestUsage, requestLine } from "./request-log.ts";
import { errorResponse } from "./respond.ts";

interface HttpContextOptions {
  services: Services;
  /** Where errors send people to fix their billing (the error envelope's help_url). */
  helpLinks: HelpLinks;
  log: LogSink;
}

/** The envelope for API errors, or an X API v2 problem on /2 paths: the dialect the client speaks. */
function errorAnswer(
  request: Request,
  error: ApiError,
  requestId: string,
  helpLinks: HelpLinks,
  headers: Record<string, string> = {},
): Response {
  return requestPath(request.url).startsWith("/2/")
    ? problemResponse(error, requestId, helpLinks, () => [], headers)
    : errorResponse(error, requestId, helpLinks, headers);
}

/** A thrown error that is no ApiError is a bug: logged with its stack, answered without internals. */
export function internalError(requestId: string, error: unknown): ApiError {
  console.error(
    JSON.stringify({
      at: new Date().toISOString(),
      id: requestId,
      level: "error",
      kind: "internal_error",
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      ...(error instanceof Error ? { stack: error.stack } : {}),
    }),
  );
  return new ApiError("internal_error", `Internal error: quote request id ${requestId} to support`);
}

function asApiError(code: string, error: unknown, requestId: string): ApiError {
  if (error instanceof ApiError) return error;
  if (code === "PARSE" || code === "VALIDATION" || code === "INVALID_COOKIE_SIGNATURE") {
    return new ApiError("invalid_request", "The request could not be read");
  }
  return internalError(requestId, error);
}

export function httpContext({ services, helpLinks, log }: HttpContextOptions) {
  // Each request's id and start, kept only until its log line is written. Not in set.headers: Elysia
  // would then copy every answer's headers to merge them in, work added to every answer.
  const begun = new WeakMap<Request, { id: string; at: number }>();
  const idOf = (request: Request) => begun.get(request)?.id ?? newRequestId();
  return (
    new Elysia({ name: "http-context" })
      .error({ ApiError })
      .decorate({ services, helpLinks })
      .onRequest(({ request }) => {
        begun.set(request, { id: newRequestId(), at: performance.now() });
        const refusal = unreadable(request);
        if (refusal) throw refusal;
      })
      .derive({ as: "global" }, ({ request, server }) => {
        const usage: RequestUsage = { credits: 0 };
        return {
          requestId: idOf(request),
          /** performance.now() when the request arrived: the request log's durations start there. */
          receivedAt: begun.get(request)?.at ?? performance.now(),
          usage,
          /** What the pipeline is told of the answer's way to the client: pass `delivery.signal` as its signal. */
          delivery: new AnswerDelivery(request, server),
          /**
           * The rate-limit state of a caller without a valid key, counted per client address, so that key
           * guessing is throttled too and every answer can carry rate-limit headers.
           */
          anonymousRate: (): Promise<RateState> =>
            services.limiter.take(`address:${server?.requestIP(request)?.address ?? "unknown"}`),
        };
      })
      .onError({ as: "global" }, ({ code, error, request, set }) => {
        const requestId = idOf(request);
        const apiError =
          code === "NOT_FOUND"
            ? new ApiError("endpoint_not_found", `No endpoint at ${requestPath(request.url)}: see /docs`)
            : asApiError(String(code), error, requestId);
        set.status = apiError.status;
        return errorAnswer(request, apiError, requestId, helpLinks);
      })
      // The last look before Bun writes the answer: an answer its connection can no longer take is refunded.
      .onAfterHandle({ as: "global" }, (context) => {
        if ("delivery" in context) context.delivery.handOver();
      })
      .onAfterResponse({ as: "global" }, (context) => {
        const { request, set } = context;
        const answer = "responseValue" in context ? context.responseValue : undefined;
        // Derived values are absent when no route matched (404) or the request was refused before routing.
        const usage: RequestUsage | undefined = "usage" in context ? context.usage : undefined;
        const start = begun.get(request);
        begun.delete(request);
        const line = requestLine({
          id: start?.id ?? "",
          request,
          status: answer instanceof Response ? answer.status : Number(set.status ?? 200),
          credits: usage?.credits ?? 0,
          startedAt: start?.at ?? performance.now(),
        });
        try {
          log(line);
        } catch (error) {
          // The answer has gone out; a log that cannot be written must not take the server down with it.
          console.error(`request log not written: ${error instanceof Error ? error.message : String(error)}`);
        }
      })
  );
}

export type HttpContext = ReturnType<typeof httpContext>;
