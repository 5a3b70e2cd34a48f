// The /v1/monitors paths of the OpenAPI document: every method the routes answer (MONITOR_PATHS), with
// the bodies, parameters and answers core's schemas check and render, and what each costs.
import {
  describeErrorStatus,
  ERROR_STATUS,
  MatchesData,
  MatchesParams,
  MONITOR_ID_PATTERN,
  MONITOR_LIMITS,
  MonitorCreateSchema,
  MonitorData,
  MonitorUpdateSchema,
  StreamParams,
  successEnvelopeSchema,
} from "@social/core";
import * as v from "valibot";
import { jsonSchemaOf } from "../docs/json-schema.ts";
import { errorResponseRef, type OpenApiPart, parameterObjects, rateLimitHeaders } from "../docs/openapi.ts";
import { STREAM_LIMITS } from "./stream.ts";

type Json = Record<string, unknown>;

const FREE = "Free: managing monitors is never charged; rate-limited like every request.";
const PAID =
  "Each new match (above the monitor's charged_through) costs 1 credit, charged as it is served, as many as the balance and the daily cap allow; matches up to charged_through are read again free. A post removed since it matched is left out, uncharged.";

const idParameter = {
  name: "id",
  in: "path",
  required: true,
  schema: { type: "string", pattern: MONITOR_ID_PATTERN.source },
  description: "The monitor's id (mon_ and 16 hex digits); another account's is 404",
};

/** The error statuses an operation answers: every one, less 402 where nothing is charged. */
function errorResponses(paid: boolean): Json {
  return Object.fromEntries(
    [...new Set(Object.values(ERROR_STATUS))]
      .filter((status) => paid || status !== 402)
      .map((status) => [String(status), errorResponseRef(describeErrorStatus(status))]),
  );
}

function envelope(schema: v.GenericSchema, description: string, status = "200"): Json {
  return {
    [status]: {
      description,
      headers: rateLimitHeaders,
      content: { "application/json": { schema: jsonSchemaOf(successEnvelopeSchema(schema)) } },
    },
  };
}

function body(schema: v.GenericSchema, description: string): Json {
  return { required: true, description, content: { "application/json": { schema: jsonSchemaOf(schema, "input") } } };
}

function operation(id: string, summary: string, parts: Json, paid = false): Json {
  return {
    operationId: id,
    summary,
    description: `${summary}\n\nCost: ${paid ? PAID : FREE}`,
    tags: ["monitors"],
    "x-cost": paid ? "1 credit per new match" : "free",
    parameters: [],
    ...parts,
    responses: { ...(parts.responses as Json), ...errorResponses(paid) },
  };
}

const Monitors = v.array(MonitorData);
const Deleted = v.strictObject({ id: v.string(), deleted: v.literal(true) });

export function monitorsOpenApi(): OpenApiPart {
  const matchesParameters = parameterObjects("/v1/monitors/{id}/matches", MatchesParams, {});
  const streamParameters = [
    ...parameterObjects("/v1/monitors/{id}/stream", StreamParams, {}),
    {
      name: "Last-Event-ID",
      in: "header",
      required: false,
      schema: { type: "integer", minimum: 0 },
      description: "The id of the last event received: the stream resumes after it (it wins over since)",
    },
  ];
  return {
    tags: ["monitors"],
    schemas: {},
    responses: {},
    paths: {
      "/v1/monitors": {
        get: operation("monitors_list", "The account's monitors, oldest first.", {
          responses: envelope(Monitors, "Success. Nothing charged."),
        }),
        post: operation(
          "monitors_create",
          `Creates a monitor: a saved search query matched against each post that arrives, delivered by webhook or read by poll, stream or MCP (delivery {"type":"pull"}, the default). At most ${MONITOR_LIMITS.perAccount} per account. Its deliveries are charged to the key that creates it.`,
          {
            requestBody: body(MonitorCreateSchema, "The monitor's fields; only query is required."),
            responses: envelope(MonitorData, "Created. A webhook monitor's secret signs its deliveries.", "201"),
          },
        ),
      },
      "/v1/monitors/{id}": {
        get: operation("monitor_get", "One monitor of the account.", {
          parameters: [idParameter],
          responses: envelope(MonitorData, "Success. Nothing charged."),
        }),
        patch: operation(
          "monitor_update",
          "Changes the fields given (null clears name or daily_credit_cap); status active lifts a pause and its reason.",
          {
            parameters: [idParameter],
            requestBody: body(MonitorUpdateSchema, "The fields to change: at least one."),
            responses: envelope(MonitorData, "Success. Nothing charged."),
          },
        ),
        delete: operation("monitor_delete", "Deletes the monitor and its matches.", {
          parameters: [idParameter],
          responses: envelope(Deleted, "Deleted. Nothing charged."),
        }),
      },
      "/v1/monitors/{id}/matches": {
        get: operation(
          "monitor_matches",
          "A pull monitor's matches above since (by default its charged_through: the new ones), each with its seq and the post as a /v1 Tweet; pass next_since as since to read on. A webhook monitor answers 409; new matches that cannot be paid are 402 when nothing paid before is there to read, else waiting under hold.",
          {
            parameters: [idParameter, ...matchesParameters],
            responses: envelope(MatchesData, "Success. meta.credits says what the new matches cost."),
          },
          true,
        ),
      },
      "/v1/monitors/{id}/stream": {
        get: operation(
          "monitor_stream",
          `A pull monitor's matches as Server-Sent Events: each match an event with id its seq, event match and data the /v1 Tweet; event hold says why new matches wait; a comment every ${STREAM_LIMITS.heartbeatMs / 1000} s when quiet. New matches are looked for every ${STREAM_LIMITS.pollMs} ms. A stream lasts at most ${STREAM_LIMITS.lifetimeMs / 60_000} minutes and ends when the server stops: reconnect with Last-Event-ID. An account may hold ${STREAM_LIMITS.perAccount} open at once on each server process; one more is 429 too_many_streams.`,
          {
            parameters: [idParameter, ...streamParameters],
            responses: {
              "200": {
                description: "The stream: refusals come before it, as the usual envelope.",
                headers: rateLimitHeaders,
                content: { "text/event-stream": { schema: { type: "string" } } },
              },
            },
          },
          true,
        ),
      },
    },
  };
}
