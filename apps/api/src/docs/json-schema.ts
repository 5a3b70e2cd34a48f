// valibot → JSON Schema 2020-12 (the dialect of OpenAPI 3.1), the one conversion the docs use.
import { type JsonSchema, toJsonSchema } from "@valibot/to-json-schema";
import type * as v from "valibot";

export function jsonSchemaOf(schema: v.GenericSchema, typeMode: "input" | "output" = "output"): JsonSchema {
  const { $schema: _dialect, ...rest } = toJsonSchema(schema, {
    target: "draft-2020-12",
    typeMode,
    errorMode: "ignore",
  });
  return rest;
}

/** The JSON Schema of each entry of an object schema (a pipe around it is looked through). */
export function entrySchemas(schema: v.GenericSchema): [string, JsonSchema, boolean][] {
  const object = jsonSchemaOf(schema, "input");
  const required = new Set(Array.isArray(object.required) ? object.required : []);
  const properties = (object.properties ?? {}) as Record<string, JsonSchema>;
  return Object.entries(properties).map(([name, property]) => [name, property, required.has(name)]);
}
