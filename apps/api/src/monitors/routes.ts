// /v1/monitors: an account's monitors managed with its API key (create, list, show, change, delete; all
// free), and the reads of a pull monitor's matches (the poll here, the stream in stream.ts). Each request
// is authenticated and rate-limited by the pipeline's `admitted`, as every read is, and answered in the
// envelope; only new matches are ever charged.
import {
  ApiError,
  calledAs,
  createMonitor,
  deleteMonitor,
  invalidRequest,
  listMonitors,
  MatchesParams,
  matchesView,
  paramsIssueMessage,
  readMatches,
  showMonitor,
  updateMonitor,
} from "@social/core";
import { Elysia } from "elysia";
import * as v from "valibot";
import type { HttpContext } from "../http/context.ts";
import { answer, queryParams } from "./answer.ts";
import { type MonitorStreams, streamAnswer } from "./stream.ts";

export interface MonitorRouteOptions {
  /** Webhooks may reach loopback and private addresses (MONITOR_ALLOW_PRIVATE). */
  allowPrivateWebhooks: boolean;
  streams: MonitorStreams;
}

/** The paths and the methods each answers, as the OpenAPI description lists them too. */
export const MONITOR_PATHS = {
  "/v1/monitors": ["GET", "POST"],
  "/v1/monitors/{id}": ["GET", "PATCH", "DELETE"],
  "/v1/monitors/{id}/matches": ["GET"],
  "/v1/monitors/{id}/stream": ["GET"],
} as const;

/** Managing takes no query parameters: the body says what to do. */
const NO_PARAMS = v.strictObject({}, paramsIssueMessage);

/** Elysia would read a body before the handler: the key is checked first, then the body is read (jsonBody). */
const READ_BODY_LATER = { parse: "none" } as const;

/** The JSON object of a POST or PATCH body (the admission check bounds its size). */
async function jsonBody(request: Request): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    body = JSON.parse(await request.text());
  } catch {
    body = undefined;
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    const message = "The body must be JSON: an object of the monitor's fields";
    throw invalidRequest(message, [{ message }]);
  }
  return body as Record<string, unknown>;
}

function refuseMethod(path: keyof typeof MONITOR_PATHS) {
  const allowed = MONITOR_PATHS[path].join(", ");
  return ({ request, set }: { request: Request; set: { headers: Record<string, unknown> } }): never => {
    set.headers.allow = allowed;
    throw new ApiError("endpoint_not_found", `${request.method} is not supported on ${path}: it answers ${allowed}`);
  };
}

export function monitorRoutes(context: HttpContext, options: MonitorRouteOptions) {
  const settings = { allowPrivateWebhooks: options.allowPrivateWebhooks };
  const id = (params: Record<string, string | undefined>) => params.id ?? "";
  return new Elysia({ name: "monitors" })
    .use(context)
    .head("/v1/monitors", refuseMethod("/v1/monitors"))
    .get("/v1/monitors", (caller) =>
      answer(caller, "monitors.list", async (key) => {
        queryParams(caller.request, NO_PARAMS);
        return { data: await listMonitors(caller.services.monitors, key.accountId, Date.now()) };
      }),
    )
    .post(
      "/v1/monitors",
      (caller) =>
        answer(caller, "monitors.create", async (key) => {
          queryParams(caller.request, NO_PARAMS);
          const body = await jsonBody(caller.request);
          const data = await createMonitor(caller.services.monitors, key, body, settings, Date.now());
          return { data, status: 201 };
        }),
      READ_BODY_LATER,
    )
    .all("/v1/monitors", refuseMethod("/v1/monitors"))
    .head("/v1/monitors/:id", refuseMethod("/v1/monitors/{id}"))
    .get("/v1/monitors/:id", (caller) =>
      answer(caller, "monitors.get", async (key) => {
        queryParams(caller.request, NO_PARAMS);
        return { data: await showMonitor(caller.services.monitors, key.accountId, id(caller.params), Date.now()) };
      }),
    )
    .patch(
      "/v1/monitors/:id",
      (caller) =>
        answer(caller, "monitors.update", async (key) => {
          queryParams(caller.request, NO_PARAMS);
          const body = await jsonBody(caller.request);
          const monitors = caller.services.monitors;
          return { data: await updateMonitor(monitors, key.accountId, id(caller.params), body, settings, Date.now()) };
        }),
      READ_BODY_LATER,
    )
    .delete("/v1/monitors/:id", (caller) =>
      answer(caller, "monitors.delete", async (key) => {
        queryParams(caller.request, NO_PARAMS);
        return { data: await deleteMonitor(caller.services.monitors, key.accountId, id(caller.params)) };
      }),
    )
    .all("/v1/monitors/:id", refuseMethod("/v1/monitors/{id}"))
    .head("/v1/monitors/:id/matches", refuseMethod("/v1/monitors/{id}/matches"))
    .get("/v1/monitors/:id/matches", (caller) =>
      answer(caller, "monitors.matches", async (key) => {
        const params = queryParams(caller.request, MatchesParams);
        const read = await readMatches(caller.services, {
          accountId: key.accountId,
          monitorId: id(caller.params),
          ...(params.since === undefined ? {} : { since: params.since }),
          max: params.max_results,
          endpoint: "monitors.matches",
          call: calledAs(caller.request.url),
        });
        return { data: matchesView(read), credits: read.credits };
      }),
    )
    .all("/v1/monitors/:id/matches", refuseMethod("/v1/monitors/{id}/matches"))
    .head("/v1/monitors/:id/stream", refuseMethod("/v1/monitors/{id}/stream"))
    .get("/v1/monitors/:id/stream", (caller) => streamAnswer(caller, id(caller.params), options.streams))
    .all("/v1/monitors/:id/stream", refuseMethod("/v1/monitors/{id}/stream"));
}
