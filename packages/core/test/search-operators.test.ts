// The customer's table of search operators: every example parses, and every spelling the parser takes
// (X's is:/has: included) is described by a row.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type OperatorExamples, parseQuery, SEARCH_OPERATORS } from "../src/index.ts";
import { X_HAS, X_IS } from "../src/search/parse.ts";

const WORLD = new Proxy({} as OperatorExamples, {
  get: (_, name) => (String(name).endsWith("_id") ? "1234567890" : "someone"),
});

describe("SEARCH_OPERATORS", () => {
  it("has an example that parses for every row", () => {
    for (const row of SEARCH_OPERATORS) assert.doesNotThrow(() => parseQuery(row.example(WORLD)), row.syntax);
  });

  it("names every spelling of is: and has:, each the same filter as its filter: row", () => {
    const syntaxes = SEARCH_OPERATORS.map((row) => row.syntax).join("\n");
    for (const [operator, table] of [
      ["is", X_IS],
      ["has", X_HAS],
    ] as const) {
      for (const [name, filter] of Object.entries(table)) {
        assert.ok(syntaxes.includes(`filter:${filter} or ${operator}:${name}`), `${operator}:${name}`);
        assert.deepEqual(parseQuery(`${operator}:${name}`), parseQuery(`filter:${filter}`));
      }
    }
  });
});
