// Valibot → JSON Schema, the one conversion behind the OpenAPI document and the MCP tool schemas, so
// both state the same bounds and patterns for every parameter and every answer. The output avoids each
// keyword whose meaning differs between draft-07 (what the MCP SDK's validator speaks) and 2020-12
// (OpenAPI 3.1's dialect and MCP's default), so one schema reads the same in both. It never carries a
// `$schema`: OpenAPI 3.1 states the dialect once for the whole document, and MCP clients expect tool
// schemas without one.
import { type JsonSchema, type OverrideSchemaContext, toJsonSchema } from "@valibot/to-json-schema";
import type * as v from "valibot";
import { idsParam, MAX_ID_DIGITS, MAX_IDS } from "./params.ts";

export type { JsonSchema } from "@valibot/to-json-schema";

/**
 * Where a schema is published. The dialect picks the draft the converter writes for: should a schema
 * ever need a keyword the drafts spell differently, each document gets its own spelling (and the
 * OpenAPI/MCP equality test names the difference). An MCP tool schema must also describe an object.
 */
export type JsonSchemaDialect = "openapi-3.1" | "mcp";

/** `input` describes what a caller sends (defaults optional); `output` what an answer holds. */
export type JsonSchemaMode = "input" | "output";

const TARGET = { "openapi-3.1": "draft-2020-12", mcp: "draft-07" } as const;

/**
 * Rules JSON Schema cannot state, dropped knowingly: cross-parameter checks (the endpoint's guidance
 * and the MCP tool description state them) and trimming (whitespace around a query is tolerated, not
 * required). Any other rule that does not convert is an error, so a new rule cannot silently vanish
 * from the published schemas.
 */
const RULES_WITHOUT_JSON_SCHEMA = ["partial_check", "trim"];

const ID = `\\d{1,${MAX_ID_DIGITS}}`;

/** The ids list's rules are checks after a split, invisible to the converter; the pattern says the same. */
const IDS_SCHEMA: JsonSchema = {
  type: "string",
  pattern: `^${ID}(,${ID}){0,${MAX_IDS - 1}}$`,
  description: `Comma-separated ids, 1 to ${MAX_IDS}, no spaces`,
};

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * A tuple becomes `items: [..]` in draft-07 but `prefixItems` in 2020-12, and each dialect misreads
 * the other's. A tuple whose positions share one schema is the same as a fixed-length array of it,
 * which both read alike.
 */
function tupleAsFixedArray({ valibotSchema, jsonSchema }: OverrideSchemaContext): JsonSchema | undefined {
  if (valibotSchema.type !== "tuple") return undefined;
  const items = jsonSchema.items ?? jsonSchema.prefixItems;
  if (!Array.isArray(items) || items.length === 0 || !items.every((item) => sameJson(item, items[0]))) {
    throw new Error("a tuple with differently typed positions has no dialect-neutral JSON Schema");
  }
  return { type: "array", items: items[0], minItems: items.length, maxItems: items.length };
}

/** The entries of an object schema, or of the object schema that starts a pipe (cross-field checks). */
function objectEntries(schema: v.GenericSchema): Record<string, v.GenericSchema> {
  const object = "pipe" in schema ? (schema.pipe as readonly v.GenericSchema[])[0] : schema;
  return object && "entries" in object ? (object.entries as Record<string, v.GenericSchema>) : {};
}

function withIdsPattern(schema: v.GenericSchema, converted: JsonSchema): JsonSchema {
  const entries = Object.entries(objectEntries(schema));
  if (!entries.some(([, entry]) => entry === idsParam)) return converted;
  const properties = { ...converted.properties };
  for (const [name, entry] of entries) if (entry === idsParam) properties[name] = { ...IDS_SCHEMA };
  return { ...converted, properties };
}

export function jsonSchemaOf(schema: v.GenericSchema, dialect: JsonSchemaDialect, mode: JsonSchemaMode): JsonSchema {
  const { $schema: _dialect, ...converted } = toJsonSchema(schema, {
    target: TARGET[dialect],
    typeMode: mode,
    errorMode: "throw",
    ignoreActions: RULES_WITHOUT_JSON_SCHEMA,
    overrideSchema: tupleAsFixedArray,
  });
  if (dialect === "mcp" && converted.type !== "object") {
    throw new Error(`an MCP tool schema must describe an object, not ${converted.type}`);
  }
  return withIdsPattern(schema, converted);
}

/** The JSON Schema of each parameter of an endpoint's parameter object (a pipe around it is looked through). */
export function parameterSchemas(
  params: v.GenericSchema,
  dialect: JsonSchemaDialect,
): [name: string, schema: JsonSchema, required: boolean][] {
  const object = jsonSchemaOf(params, dialect, "input");
  const required = new Set(object.required ?? []);
  const properties = (object.properties ?? {}) as Record<string, JsonSchema>;
  return Object.entries(properties).map(([name, schema]) => [name, schema, required.has(name)]);
}
