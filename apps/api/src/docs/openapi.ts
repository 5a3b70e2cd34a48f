// The OpenAPI 3.1 description, generated from the catalogue once at start-up: every path, parameter
// (with its bounds), response shape and cost, the error envelope, the bearer scheme, and examples
// taken from the fixture world's stable ids.
import {
  type AccountRead,
  accountReads,
  CONTROL_PARAMS,
  catalogue,
  DryRunEnvelopeSchema,
  decisionsMarkdown,
  describeEndpointCost,
  describeErrorStatus,
  describePrice,
  type Endpoint,
  ERROR_STATUS,
  ErrorEnvelopeSchema,
  endpointsById,
  IdempotencyKeySchema,
  MAX_CREDITS_HEADER,
  openPointDecisions,
  pathParamNames,
  renderGuidance,
  successEnvelopeSchema,
} from "@social/core";
import { exampleParams } from "@social/fixtures";
import * as v from "valibot";
import { MAX_BODY_BYTES, MAX_URL_LENGTH } from "../http/admission.ts";
import { entrySchemas, jsonSchemaOf } from "./json-schema.ts";

type Json = Record<string, unknown>;

export const API_VERSION = "1.0.0";

/** The decisions on SPEC.md's open points, with this host's own limits; /docs renders the same list. */
export const DECISIONS = openPointDecisions({ maxUrlLength: MAX_URL_LENGTH, maxBodyBytes: MAX_BODY_BYTES });

/** OpenAPI parameter objects for a path and the object schema of its parameters (path and query). */
export function parameterObjects(path: string, params: v.GenericSchema, example: Record<string, string>): Json[] {
  const inPath = new Set(pathParamNames(path));
  return entrySchemas(params).map(([name, schema, required]) => ({
    name,
    in: inPath.has(name) ? "path" : "query",
    required: inPath.has(name) || required,
    schema,
    ...(typeof schema.description === "string" ? { description: schema.description } : {}),
    ...(example[name] ? { example: example[name] } : {}),
  }));
}

export const errorResponseRef = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } },
});

/** A header, its schema (and by default its description) from the valibot schema the pipeline checks with. */
function headerParameter(name: string, schema: v.GenericSchema, description?: string): Json {
  const converted = jsonSchemaOf(schema, "input");
  return { name, in: "header", required: false, schema: converted, description: description ?? converted.description };
}

/** The request controls every charged operation takes (/v1 and /2), as query parameters and headers. */
export const controlParameters: Json[] = [
  ...parameterObjects("", v.strictObject(CONTROL_PARAMS), {}),
  headerParameter(
    MAX_CREDITS_HEADER,
    v.unwrap(CONTROL_PARAMS.max_credits),
    "max_credits as a header, for clients that cannot add parameters; give one or the other.",
  ),
  headerParameter("Idempotency-Key", IdempotencyKeySchema),
];

/** On every charged operation's success (/v1 and /2). */
export const replayedHeader = {
  "idempotent-replayed": {
    schema: { type: "string", enum: ["true"] },
    description:
      "Sent on a retry with an Idempotency-Key already answered: the body is the first answer, byte for byte, and nothing was charged again.",
  },
};

export const rateLimitHeaders = {
  "x-request-id": { schema: { type: "string" }, description: "Equal to meta.request_id." },
  ...replayedHeader,
  "x-rate-limit-limit": { schema: { type: "integer" }, description: "Bucket capacity for this key." },
  "x-rate-limit-remaining": { schema: { type: "integer" }, description: "Requests left in the bucket." },
  "x-rate-limit-reset": { schema: { type: "integer" }, description: "Unix seconds when the bucket is full again." },
};

/** An entry's guidance with the entries it names as their /v1 paths. */
export function httpGuidance(endpoint: Endpoint): string {
  return renderGuidance(endpoint.guidance, (id) => endpointsById.get(id)?.path);
}

/**
 * A dry run's answer is documented as a response of its own rather than as an alternative of every
 * read's 200: a generated client then types a normal read as the read alone, with no guard, and a
 * caller who asks for a quote takes this response's type (components.schemas.DryRunQuote).
 */
export const DRY_RUN_POINTER =
  "With dry_run=true the answer is instead the DryRunQuote response (components.responses.DryRunQuote): no data, nothing charged, the quote in meta.credits (max, rule).";

function operation(endpoint: Endpoint): Json {
  const paged = endpoint.pageSize ? " Paginated: pass meta.pagination.next_token as next_token for the next page." : "";
  return {
    operationId: endpoint.id,
    summary: endpoint.summary,
    description: `${endpoint.summary} ${httpGuidance(endpoint)}\n\nCost: ${describePrice(endpoint)}.${paged}`,
    tags: [endpoint.toolset],
    "x-cost": describeEndpointCost(endpoint),
    parameters: [...parameterObjects(endpoint.path, endpoint.params, exampleParams(endpoint)), ...controlParameters],
    responses: {
      "200": {
        description: `Success. Charged: ${describeEndpointCost(endpoint)}. ${DRY_RUN_POINTER}`,
        headers: rateLimitHeaders,
        content: { "application/json": { schema: jsonSchemaOf(successEnvelopeSchema(endpoint.data)) } },
      },
      ...Object.fromEntries(
        [...new Set(Object.values(ERROR_STATUS))].map((status) => [
          String(status),
          errorResponseRef(describeErrorStatus(status)),
        ]),
      ),
    },
  };
}

/** A free account read: the same envelope and errors, without a charge (and without 402). */
function accountOperation(read: AccountRead): Json {
  const csv =
    read.id === "usage"
      ? { "text/csv": { schema: { type: "string", description: "A header row, then one row per group" } } }
      : {};
  return {
    operationId: read.id,
    summary: read.summary,
    description: `${read.summary}\n\nCost: none; rate-limited like every request.`,
    tags: ["account"],
    "x-cost": "free",
    parameters: parameterObjects(read.path, read.params, {}),
    responses: {
      "200": {
        description: "Success. Nothing charged: meta.credits.charged is 0 and remaining is the balance.",
        headers: rateLimitHeaders,
        content: {
          "application/json": { schema: jsonSchemaOf(successEnvelopeSchema(read.data)) },
          ...csv,
        },
      },
      ...Object.fromEntries(
        [...new Set(Object.values(ERROR_STATUS))]
          .filter((status) => status !== 402)
          .map((status) => [String(status), errorResponseRef(describeErrorStatus(status))]),
      ),
    },
  };
}

const dryRunQuote = {
  schemas: { DryRunQuote: jsonSchemaOf(DryRunEnvelopeSchema) },
  responses: {
    DryRunQuote: {
      description:
        "The answer of any /v1 read sent with dry_run=true, status 200: data null, nothing charged, and in meta.credits the most the request can cost (max) and the rule that counts it.",
      content: { "application/json": { schema: { $ref: "#/components/schemas/DryRunQuote" } } },
    },
  },
};

/**
 * What another part of the API (the monitors, /2) adds to the description: its paths, the schemas and
 * responses they name, and the tags of its operations.
 */
export interface OpenApiPart {
  paths: Record<string, Json>;
  schemas: Record<string, object>;
  responses: Record<string, Json>;
  tags?: readonly string[];
}

export function buildOpenApi(serverUrl: string, extras: readonly OpenApiPart[]): Json {
  const paths: Record<string, Json> = {};
  for (const read of accountReads) paths[read.path] = { get: accountOperation(read) };
  for (const endpoint of catalogue) paths[endpoint.path] = { get: operation(endpoint) };
  const extra = (part: keyof Omit<OpenApiPart, "tags">) => Object.assign({}, ...extras.map((each) => each[part]));
  return {
    openapi: "3.1.0",
    info: {
      title: "Social Data API",
      version: API_VERSION,
      description: `A paid, read-only API over public social data. Every request is billed in credits; responses carry the charge and the remaining balance in meta.credits. New accounts receive 1000 credits.\n\nHow the API decides the finer points:\n\n${decisionsMarkdown(DECISIONS)}`,
    },
    servers: [{ url: serverUrl }],
    security: [{ bearerAuth: [] }],
    tags: ["account", ...new Set(catalogue.map((e) => e.toolset)), ...extras.flatMap((each) => each.tags ?? [])].map(
      (name) => ({ name }),
    ),
    paths: { ...paths, ...extra("paths") },
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "Authorization: Bearer <API_KEY>" },
      },
      schemas: { ErrorEnvelope: jsonSchemaOf(ErrorEnvelopeSchema), ...dryRunQuote.schemas, ...extra("schemas") },
      responses: { ...dryRunQuote.responses, ...extra("responses") },
    },
  };
}
