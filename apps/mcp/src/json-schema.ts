// Valibot → JSON Schema for MCP tools. The output avoids every keyword whose meaning differs between
// draft-07 (what the SDK's validator speaks) and 2020-12 (the MCP specification's default dialect), so
// one schema validates the same under both; and it carries no `$schema`, as the MCP schema expects.
import { idsParam, MAX_ID_DIGITS, MAX_IDS, nextTokenParam } from "@social/core";
import { type JsonSchema, type OverrideSchemaContext, toJsonSchema } from "@valibot/to-json-schema";
import type * as v from "valibot";

/**
 * Rules JSON Schema cannot state, dropped knowingly: cross-parameter checks (tools.ts states them in
 * the description) and trimming (whitespace around a query is tolerated, not required). Any other
 * rule that does not convert is an error, so a new rule cannot silently vanish from the schemas.
 */
const RULES_WITHOUT_JSON_SCHEMA = ["partial_check", "trim"];

const ID = `\\d{1,${MAX_ID_DIGITS}}`;

/** Shared parameters whose converted schema needs more than the converter can see. */
const PARAMETER_SCHEMAS = new Map<v.GenericSchema, (converted: JsonSchema) => JsonSchema>([
  // The ids list's rules are checks after a split, invisible to the converter; the pattern says the same.
  [
    idsParam,
    () => ({
      type: "string",
      pattern: `^${ID}(,${ID}){0,${MAX_IDS - 1}}$`,
      description: `Comma-separated ids, 1 to ${MAX_IDS}, no spaces`,
    }),
  ],
  [nextTokenParam, (converted) => ({ ...converted, description: "The next_token of the previous result, unchanged" })],
]);

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * A tuple becomes `items: [..]` in draft-07 but `prefixItems` in 2020-12, and each dialect misreads
 * the other's. A tuple whose positions share one schema is the same as a fixed-length array of it,
 * which both dialects read alike.
 */
function tupleAsFixedArray(context: OverrideSchemaContext): JsonSchema | undefined {
  const { valibotSchema, jsonSchema } = context;
  if (valibotSchema.type !== "tuple") return undefined;
  const items = jsonSchema.items;
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

function withParameterSchemas(schema: v.GenericSchema, converted: JsonSchema): JsonSchema {
  const properties = { ...converted.properties };
  for (const [name, entry] of Object.entries(objectEntries(schema))) {
    const override = PARAMETER_SCHEMAS.get(entry);
    const property = properties[name];
    if (override && typeof property === "object") properties[name] = override(property);
  }
  return { ...converted, properties };
}

/** `input` describes what a caller sends (defaults optional); `output` what a result holds. */
export function toJsonSchemaObject(schema: v.GenericSchema, mode: "input" | "output"): Record<string, unknown> {
  const { $schema: _dialect, ...converted } = toJsonSchema(schema, {
    typeMode: mode,
    errorMode: "throw",
    ignoreActions: RULES_WITHOUT_JSON_SCHEMA,
    overrideSchema: tupleAsFixedArray,
  });
  if (converted.type !== "object") throw new Error(`an MCP tool schema must describe an object, not ${converted.type}`);
  return { ...withParameterSchemas(schema, converted) };
}
