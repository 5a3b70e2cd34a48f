// The Elysia application: /v1 and /2 routes derived from the catalogue, MCP at /mcp, the demo, the
// OpenAPI description, the docs page and the dashboard. Every failure, unknown paths and thrown errors
// included, is answered in the error envelope.
import {
  ApiError,
  helpLinksOf,
  newRequestId,
  rateHeaders,
  rateLimitError,
  requestTarget,
  type Services,
  successEnvelope,
} from "@social/core";
import { handleMcpRequest } from "@social/mcp";
import { Elysia } from "elysia";
import { accountRoutes } from "./account/routes.ts";
import { type DashboardOptions, dashboardRoutes } from "./dashboard/routes.ts";
import { Demo, demoRun } from "./demo.ts";
import { buildOpenApi } from "./docs/openapi.ts";
import { docsPage } from "./docs/page.ts";
import { sampleResponses } from "./docs/samples.ts";
import { prefersHtml } from "./http/accept.ts";
import { httpContext, internalError } from "./http/context.ts";
import { type LogSink, stdoutLog } from "./http/request-log.ts";
import { errorResponse, fixedDocument, json } from "./http/respond.ts";
import { monitorsOpenApi } from "./monitors/openapi.ts";
import { monitorRoutes } from "./monitors/routes.ts";
import { MonitorStreams } from "./monitors/stream.ts";
import { demoPage } from "./site/demo-page.ts";
import { landingPage } from "./site/landing.ts";
import { PUBLIC_PAGE_HEADERS } from "./site/page.ts";
import { v1Routes } from "./v1/routes.ts";
import { v2OpenApi } from "./v2/openapi.ts";
import { v2Routes } from "./v2/routes.ts";

export interface AppOptions {
  services: Services;
  publicUrl: string;
  log?: LogSink;
  /** The database behind the dashboard and billing pages; without it the app serves the API alone. */
  dashboard?: DashboardOptions;
  /** The most characters an MCP tool result's text holds (SOCIAL_MCP_MAX_CHARS); the MCP default when absent. */
  mcpMaxChars?: number;
  /** Monitor webhooks may reach loopback and private addresses (MONITOR_ALLOW_PRIVATE); false when absent. */
  allowPrivateWebhooks?: boolean;
  /** The monitor streams the server ends when it stops; a set of the app's own when absent. */
  streams?: MonitorStreams;
}

export function createApp(options: AppOptions) {
  const { services, publicUrl } = options;
  const helpLinks = helpLinksOf(publicUrl);
  const context = httpContext({ services, helpLinks, log: options.log ?? stdoutLog });
  const openApi = fixedDocument(JSON.stringify(buildOpenApi(publicUrl, [monitorsOpenApi(), v2OpenApi()])), {
    "content-type": "application/json; charset=utf-8",
  });
  // Built on the first visit: its sample responses are read from the store. A failed build (the database
  // away) is not kept, so the next visit tries again.
  let docsAnswer: Promise<(request: Request) => Response> | undefined;
  const docs = (request: Request) => {
    docsAnswer ??= sampleResponses(services.store).then((samples) =>
      fixedDocument(docsPage(publicUrl, samples), PUBLIC_PAGE_HEADERS),
    );
    docsAnswer.catch(() => {
      docsAnswer = undefined;
    });
    return docsAnswer.then((answer) => answer(request));
  };
  const landing = fixedDocument(
    landingPage({
      baseUrl: publicUrl,
      ...(options.dashboard ? { billing: options.dashboard.billing } : {}),
      signIn: options.dashboard?.oidc !== undefined,
    }),
    PUBLIC_PAGE_HEADERS,
  );
  const demo = new Demo(services.store);
  // The API and the dashboard hold monitors to one setting.
  const monitorSettings = { allowPrivateWebhooks: options.allowPrivateWebhooks ?? false };

  return (
    new Elysia({
      // By default the router cuts the path out of request.url from the 12th character on, assuming a host
      // of 4 or more: behind `Host: x`, /v1/v1/users/1 was served as /v1/users/1. From the 8th (right
      // after `http://`) the cut is right for every absolute URL, and onRequest refuses the others.
      handler: { standardHostname: false },
      // Bun's development mode (on unless NODE_ENV=production) answers an error that escapes onError with
      // a page of source and file paths; the envelope is the last resort instead.
      serve: {
        development: false,
        error: (error) => {
          const id = newRequestId();
          return errorResponse(internalError(id, error), id, helpLinks);
        },
      },
    })
      .use(context)
      .get("/", ({ request }) => landing(request))
      .get("/openapi.json", ({ request }) => openApi(request))
      .get("/docs", ({ request }) => docs(request))
      .get("/demo", async ({ request, requestId, anonymousRate }) => {
        const rate = await anonymousRate();
        const headers = { "x-request-id": requestId, ...rateHeaders(rate) };
        // Only the shared answer may be kept by caches: a refusal is about this one request.
        const refusalHeaders = { ...headers, "cache-control": "no-store" };
        const run = demoRun(requestTarget(request.url).query.get("run"));
        if (!rate.allowed) return errorResponse(rateLimitError(rate), requestId, helpLinks, refusalHeaders);
        if (!run) {
          const error = new ApiError("invalid_request", "run must be search, or absent for the profile demo", {
            details: [{ parameter: "run", message: "must be search or absent" }],
          });
          return errorResponse(error, requestId, helpLinks, refusalHeaders);
        }
        // A browser gets the page, a program the JSON: caches keep them apart by Accept.
        const shared = { ...headers, "cache-control": "public, max-age=60", vary: "accept" };
        const answer = await demo.answer(run);
        if (prefersHtml(request)) {
          return new Response(demoPage(publicUrl, run, answer), { headers: { ...PUBLIC_PAGE_HEADERS, ...shared } });
        }
        return json(successEnvelope(answer.data, requestId, { charged: 0, remaining: 0 }), 200, shared);
      })
      .use(accountRoutes(context))
      .use(
        monitorRoutes(context, {
          ...monitorSettings,
          streams: options.streams ?? new MonitorStreams(),
        }),
      )
      .use(v1Routes(context))
      .use(v2Routes(context))
      .use(dashboardRoutes(context, options.dashboard, monitorSettings))
      // MCP over Streamable HTTP: the same pipeline, key and ledger as /v1; the handler reads the body.
      .all("/mcp", ({ request, requestId, delivery, anonymousRate }) =>
        handleMcpRequest(request, services, {
          helpLinks,
          requestId,
          signal: delivery.signal,
          anonymousRate,
          ...(options.mcpMaxChars === undefined ? {} : { maxChars: options.mcpMaxChars }),
        }),
      )
  );
}
