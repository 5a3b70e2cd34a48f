// The Elysia application: /v1 and /2 routes derived from the catalogue, MCP at /mcp, the demo, the
// OpenAPI description, the docs page and the dashboard. Every failure, unknown paths and thrown errors
// included, is answered in the error envelope.
import {
  ApiError,
  newRequestId,
  type RateLimiter,
  type RateState,
  rateHeaders,
  rateLimitError,
  requestPath,
  requestTarget,
  type Services,
  successEnvelope,
} from "@social/core";
import { handleMcpRequest } from "@social/mcp";
import { isDatabaseOutage } from "@social/store-sqlite";
import { Elysia } from "elysia";
import { type DashboardOptions, registerDashboardRoutes } from "./dashboard/routes.ts";
import { Demo, demoRun } from "./demo.ts";
import { buildOpenApi } from "./docs/openapi.ts";
import { docsPage, docsPageHeaders } from "./docs/page.ts";
import { beginRequest, finishRequest, type LogSink, requestIdOf } from "./http/request-log.ts";
import { errorResponse, json } from "./http/respond.ts";
import { type RouteContext, registerV1Routes } from "./v1/routes.ts";
import { v2OpenApiPaths } from "./v2/openapi.ts";
import { registerV2Routes } from "./v2/routes.ts";

/** Longest URL accepted; the longest legitimate one (100 ids, a 512-character query, a token) is far shorter. */
export const MAX_URL_LENGTH = 8192;
/** All operations are GET: a request body is never needed, so any sizeable one is refused. */
export const MAX_BODY_BYTES = 16 * 1024;

export interface AppOptions {
  services: Services;
  publicUrl: string;
  log?: LogSink;
  /** The database behind the dashboard and billing pages; without it the app serves the API alone. */
  dashboard?: DashboardOptions;
}

function clientAddress(server: { requestIP(request: Request): { address: string } | null } | null, request: Request) {
  return server?.requestIP(request)?.address ?? "unknown";
}

function anonymousRate(limiter: RateLimiter, address: string): RateState {
  return limiter.take(`address:${address}`);
}

/** Why a request is refused before routing, if it is. */
function unreadable(request: Request): ApiError | undefined {
  // Bun leaves scheme and host out of request.url when the Host header cannot be part of a URL (a
  // space, a slash, none on HTTP/1.0), and passes CONNECT's host:port on as it came: the router finds
  // paths in absolute URLs only.
  if (!request.url.startsWith("http://")) {
    return new ApiError(
      "invalid_request",
      "The Host header must be a host name or address with an optional port, and the request target a path",
    );
  }
  if (request.url.length > MAX_URL_LENGTH) {
    return new ApiError("invalid_request", `The URL is longer than ${MAX_URL_LENGTH} characters`);
  }
  const length = Number(request.headers.get("content-length") ?? 0);
  if (length > MAX_BODY_BYTES || request.headers.has("transfer-encoding")) {
    return new ApiError(
      "invalid_request",
      `Request bodies over ${MAX_BODY_BYTES} bytes or without a Content-Length are refused: reads are GETs and MCP messages are small`,
    );
  }
}

export function createApp(options: AppOptions) {
  const { services, publicUrl } = options;
  const log = options.log ?? ((line: string) => console.log(line));
  const helpUrl = `${publicUrl}/billing`;
  const openApi = JSON.stringify(buildOpenApi(publicUrl, v2OpenApiPaths()));
  const docs = docsPage(publicUrl);
  const docsHeaders = { "content-type": "text/html; charset=utf-8", ...docsPageHeaders(docs) };
  const demo = new Demo(services.store);
  let server: { requestIP(request: Request): { address: string } | null } | null = null;

  const requestId = (request: Request) => requestIdOf(request) ?? newRequestId();
  const finish = (request: Request, response: Response, credits = 0) => finishRequest(log, request, response, credits);
  const failureResponse = (id: string, error: unknown) => {
    const outage = isDatabaseOutage(error);
    console.error(
      JSON.stringify({
        at: new Date().toISOString(),
        id,
        level: "error",
        kind: outage ? "service_unavailable" : "internal_error",
        error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
        ...(outage || !(error instanceof Error) ? {} : { stack: error.stack }),
      }),
    );
    const apiError = outage
      ? new ApiError("service_unavailable", "The service is temporarily unavailable: retry in a few seconds")
      : new ApiError("internal_error", `Internal error: quote request id ${id} to support`);
    return errorResponse(apiError, id, helpUrl);
  };
  const failure = (request: Request, error: unknown) => finish(request, failureResponse(requestId(request), error));
  const context: RouteContext = {
    services,
    helpUrl,
    finish,
    requestId,
    failure,
    anonymousRate: (request) => anonymousRate(services.limiter, clientAddress(server, request)),
  };

  const app = new Elysia({
    // By default the router cuts the path out of request.url from the 12th character on, assuming a host
    // of 4 or more: behind `Host: x`, /v1/v1/users/1 was served as /v1/users/1. From the 8th (right
    // after `http://`) the cut is right for every absolute URL, and onRequest refuses the others.
    handler: { standardHostname: false },
    // Bun's development mode (on unless NODE_ENV=production) answers an error that escapes onError with
    // a page of source and file paths; the envelope is the last resort instead.
    serve: { development: false, error: (error) => failureResponse(newRequestId(), error) },
  })
    .onStart(({ server: started }) => {
      server = started;
    })
    .onRequest(({ request }) => {
      const id = newRequestId();
      beginRequest(request, id);
      const refusal = unreadable(request);
      if (refusal) return finish(request, errorResponse(refusal, id, helpUrl));
    })
    .onError(({ code, error, request }) => {
      if (code === "NOT_FOUND") {
        const path = requestPath(request.url);
        return finish(
          request,
          errorResponse(
            new ApiError("endpoint_not_found", `No endpoint at ${path}: see /docs`),
            requestId(request),
            helpUrl,
          ),
        );
      }
      if (code === "PARSE" || code === "VALIDATION" || code === "INVALID_COOKIE_SIGNATURE") {
        return finish(
          request,
          errorResponse(new ApiError("invalid_request", "The request could not be read"), requestId(request), helpUrl),
        );
      }
      return failure(request, error);
    })
    .get("/", ({ request }) => finish(request, Response.redirect(`${publicUrl}/docs`, 302)))
    .get("/openapi.json", ({ request }) =>
      finish(request, new Response(openApi, { headers: { "content-type": "application/json; charset=utf-8" } })),
    )
    .get("/docs", ({ request }) => finish(request, new Response(docs, { headers: docsHeaders })))
    .get("/demo", async ({ request }) => {
      const id = requestId(request);
      const rate = context.anonymousRate(request);
      const headers = { "x-request-id": id, ...rateHeaders(rate) };
      // Only the shared answer may be kept by caches: a refusal is about this one request.
      const refusalHeaders = { ...headers, "cache-control": "no-store" };
      const run = demoRun(requestTarget(request.url).query.get("run"));
      if (!rate.allowed) {
        return finish(request, errorResponse(rateLimitError(rate), id, helpUrl, refusalHeaders));
      }
      if (!run) {
        const error = new ApiError("invalid_request", "run must be search, or absent for the profile demo", {
          details: [{ parameter: "run", message: "must be search or absent" }],
        });
        return finish(request, errorResponse(error, id, helpUrl, refusalHeaders));
      }
      try {
        const data = await demo.data(run);
        const shared = { ...headers, "cache-control": "public, max-age=60" };
        return finish(request, json(successEnvelope(data, id, { charged: 0, remaining: 0 }), 200, shared));
      } catch (error) {
        return failure(request, error);
      }
    });

  registerV1Routes(app as unknown as Elysia, context);
  registerV2Routes(app as unknown as Elysia, context);
  registerDashboardRoutes(app as unknown as Elysia, context, options.dashboard);
  // MCP over Streamable HTTP: the same pipeline, key and ledger as /v1; the handler reads the body.
  app.all("/mcp", async ({ request }) => {
    try {
      const response = await handleMcpRequest(request, services, {
        helpUrl,
        requestId: requestId(request),
        anonymousRate: () => context.anonymousRate(request),
      });
      return finish(request, response);
    } catch (error) {
      return failure(request, error);
    }
  });
  return app;
}
