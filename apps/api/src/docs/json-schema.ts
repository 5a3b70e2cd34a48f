// The API's documents are OpenAPI 3.1; the conversion is core's, the one the MCP tools use too.
import { jsonSchemaOf as convert, type JsonSchema, type JsonSchemaMode, parameterSchemas } from "@social/core";
import type * as v from "valibot";

export function jsonSchemaOf(schema: v.GenericSchema, mode: JsonSchemaMode = "output"): JsonSchema {
  return convert(schema, "openapi-3.1", mode);
}

/** The JSON Schema of each parameter, and whether it is required. */
export function entrySchemas(params: v.GenericSchema): ReturnType<typeof parameterSchemas> {
  return parameterSchemas(params, "openapi-3.1");
}
