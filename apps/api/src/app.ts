// The Elysia application: /v1 and /2 routes derived from the catalogue, MCP at /mcp, the demo, the
// OpenAPI description, the docs page and the dashboard. Every failure, unknown paths and thrown errors
// included, is answered in the error envelope.
import {
  ApiError,
  newRequestId,
  type RateLimiter,
  type RateState,
  rateLimitError,
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
import { errorResponse, json, rateHeaders } from "./http/respond.ts";
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
  const failure = (request: Request, error: unknown) => {
    const id = requestId(request);
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
    return finish(request, errorResponse(apiError, id, helpUrl));
  };
  const context: RouteContext = {
    services,
    helpUrl,
    finish,
    requestId,
    failure,
    anonymousRate: (request) => anonymousRate(services.limiter, clientAddress(server, request)),
  };

  const app = new Elysia()
    .onStart(({ server: started }) => {
      server = started;
    })
    .onRequest(({ request }) => {
      const id = newRequestId();
      beginRequest(request, id);
      const length = Number(request.headers.get("content-length") ?? 0);
      if (request.url.length > MAX_URL_LENGTH) {
        return finish(
          request,
          errorResponse(
            new ApiError("invalid_request", `The URL is longer than ${MAX_URL_LENGTH} characters`),
            id,
            helpUrl,
          ),
        );
      }
      if (length > MAX_BODY_BYTES || request.headers.has("transfer-encoding")) {
        return finish(
          request,
          errorResponse(
            new ApiError(
              "invalid_request",
              `Request bodies over ${MAX_BODY_BYTES} bytes or without a Content-Length are refused: reads are GETs and MCP messages are small`,
            ),
            id,
            helpUrl,
          ),
        );
      }
    })
    .onError(({ code, error, request }) => {
      if (code === "NOT_FOUND") {
        const path = new URL(request.url).pathname;
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
      const headers = { "x-request-id": id, "cache-control": "public, max-age=60", ...rateHeaders(rate) };
      const run = demoRun(new URL(request.url).searchParams.get("run"));
      if (!rate.allowed) {
        return finish(request, errorResponse(rateLimitError(rate), id, helpUrl, headers));
      }
      if (!run) {
        const error = new ApiError("invalid_request", "run must be search, or absent for the profile demo", {
          details: [{ parameter: "run", message: "must be search or absent" }],
        });
        return finish(request, errorResponse(error, id, helpUrl, headers));
      }
      try {
        const data = await demo.data(run);
        return finish(request, json(successEnvelope(data, id, { charged: 0, remaining: 0 }), 200, headers));
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
      const response = await handleMcpRequest(request, services, { helpUrl, requestId: requestId(request) });
      return finish(request, response);
    } catch (error) {
      return failure(request, error);
    }
  });
  return app;
}
