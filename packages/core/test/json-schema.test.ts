// The one Valibot → JSON Schema conversion: both dialects agree on every schema the API publishes, the
// ids pattern accepts exactly the lists the ids parameter accepts, and what cannot be stated
// dialect-neutrally is refused instead of published wrong.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import * as v from "valibot";
import {
  catalogue,
  idsParam,
  type JsonSchemaDialect,
  jsonSchemaOf,
  MAX_ID_DIGITS,
  MAX_IDS,
  parameterSchemas,
} from "../src/index.ts";

const DIALECTS: JsonSchemaDialect[] = ["openapi-3.1", "mcp"];

describe("jsonSchemaOf", () => {
  it("gives both dialects the same schema for every endpoint's parameters and data", () => {
    for (const endpoint of catalogue) {
      const [openapi, mcp] = DIALECTS.map((dialect) => ({
        params: jsonSchemaOf(endpoint.params, dialect, "input"),
        data: jsonSchemaOf(v.object({ data: endpoint.data }), dialect, "output"),
      }));
      assert.deepEqual(openapi, mcp, endpoint.id);
      assert.equal(JSON.stringify(openapi).includes('"$schema"'), false, endpoint.id);
    }
  });

  it("lists each parameter with its schema and whether it is required", () => {
    const search = catalogue.find((endpoint) => endpoint.id === "search_recent");
    assert.ok(search);
    const parameters = new Map(parameterSchemas(search.params, "openapi-3.1").map(([name, ...rest]) => [name, rest]));
    assert.deepEqual(parameters.get("query"), [{ type: "string", minLength: 1, maxLength: 512 }, true]);
    assert.equal(parameters.get("next_token")?.[0].description, "The previous result's next_token");
    assert.equal(parameters.get("next_token")?.[1], false);
  });

  it("states the ids list's rules as a pattern that accepts exactly what the parameter accepts", () => {
    const schema = parameterSchemas(v.strictObject({ ids: idsParam }), "openapi-3.1")[0]?.[1];
    assert.equal(typeof schema?.pattern, "string");
    const pattern = new RegExp(schema?.pattern as string);
    const accepts = (text: string) => v.safeParse(idsParam, text).success;
    const id = fc.oneof(fc.stringMatching(new RegExp(`^\\d{1,${MAX_ID_DIGITS + 1}}$`)), fc.constantFrom("", " 1", "a"));
    const list = fc.array(id, { minLength: 1, maxLength: MAX_IDS + 2 }).map((ids) => ids.join(","));
    fc.assert(fc.property(list, (text) => pattern.test(text) === accepts(text)));
    const full = Array.from({ length: MAX_IDS }, (_, i) => String(i + 1)).join(",");
    assert.equal(pattern.test(full), true);
    assert.equal(pattern.test(`${full},${MAX_IDS + 1}`), false);
  });

  it("writes a tuple of one type as a fixed-length array, which draft-07 and 2020-12 read alike", () => {
    for (const dialect of DIALECTS) {
      const schema = jsonSchemaOf(v.object({ pair: v.tuple([v.number(), v.number()]) }), dialect, "output");
      assert.deepEqual(schema.properties?.pair, { type: "array", items: { type: "number" }, minItems: 2, maxItems: 2 });
    }
  });

  it("refuses what it cannot state the same way in every dialect, or at all", () => {
    for (const dialect of DIALECTS) {
      const mixed = v.object({ pair: v.tuple([v.number(), v.string()]) });
      assert.throws(() => jsonSchemaOf(mixed, dialect, "output"), /differently typed/);
      const checked = v.object({
        text: v.pipe(
          v.string(),
          v.check((text: string) => text !== ""),
        ),
      });
      assert.throws(() => jsonSchemaOf(checked, dialect, "input"), /check/);
    }
    assert.throws(() => jsonSchemaOf(v.string(), "mcp", "input"), /must describe an object/);
    assert.deepEqual(jsonSchemaOf(v.string(), "openapi-3.1", "input"), { type: "string" });
  });
});
