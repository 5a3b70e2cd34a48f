// Parameter names as validation reports them: a missing required parameter is "required", an unknown
// one is "not a parameter", whatever the name, those of Object.prototype included.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type ApiError, catalogue, decodeParams, type Endpoint, numericParams, validateParams } from "../src/index.ts";

const PROTOTYPE_NAMES = [
  "__proto__",
  "constructor",
  "toString",
  "valueOf",
  "hasOwnProperty",
  "isPrototypeOf",
  "__defineGetter__",
  "prototype",
];

function endpoint(id: string): Endpoint {
  const found = catalogue.find((entry) => entry.id === id);
  assert.ok(found, `no catalogue entry ${id}`);
  return found;
}

/** The invalid_request a set of raw query parameters gets, decoded as the HTTP layers decode them. */
function refusal(entry: Endpoint, raw: [string, string][]): ApiError {
  const { values, repeated } = decodeParams(raw, numericParams(entry.params));
  try {
    validateParams(entry, values, repeated);
  } catch (error) {
    return error as ApiError;
  }
  assert.fail(`${entry.id} accepted ${JSON.stringify(raw)}`);
}

describe("a missing required parameter", () => {
  it("is reported as required, in the message and the details", () => {
    const search = refusal(endpoint("search_recent"), [["limit", "5"]]);
    assert.equal(search.code, "invalid_request");
    assert.equal(search.message, "Invalid request: query is required");
    assert.deepEqual(search.details, [{ parameter: "query", message: "is required" }]);
  });

  it("is required on every entry that has one, never called unknown", () => {
    const relationship = refusal(endpoint("users_relationship"), [["source", "a"]]);
    assert.deepEqual(relationship.details, [{ parameter: "target", message: "is required" }]);
    const followers = refusal(endpoint("users_followers"), [["mode", "ids"]]);
    assert.deepEqual(followers.details, [{ parameter: "id", message: "is required" }]);
  });
});

describe("parameters that are no object at all", () => {
  it("are refused as a whole, naming no parameter", () => {
    const notAnObject = "query=cats" as unknown as Record<string, unknown>;
    assert.throws(
      () => validateParams(endpoint("search_recent"), notAnObject),
      (error: ApiError) => {
        assert.deepEqual(error.details, [{ message: "must be an object of named parameters" }]);
        return true;
      },
    );
  });
});

describe("an unknown parameter", () => {
  for (const name of PROTOTYPE_NAMES) {
    it(`${name} is not a parameter of the endpoint`, () => {
      const error = refusal(endpoint("search_recent"), [
        ["query", "cats"],
        [name, "1"],
      ]);
      assert.deepEqual(error.details, [{ parameter: name, message: "is not a parameter of this endpoint" }]);
    });
  }

  it("decodes into a record of its own, leaving the prototype alone", () => {
    const { values } = decodeParams([["__proto__", "1"]], new Set());
    assert.equal(Object.getPrototypeOf(values), null);
    assert.deepEqual(Object.keys(values), ["__proto__"]);
  });
});
