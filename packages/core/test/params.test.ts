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

describe("start_time and end_time", () => {
  const search = endpoint("search_recent");
  const startOf = (text: string) =>
    (validateParams(search, { query: "coffee", start_time: text }) as { start_time: number }).start_time;

  it("take RFC 3339 with Z or an offset, as X's clients send them (twarc2 writes +00:00)", () => {
    const instant = Date.UTC(2026, 10, 20, 8, 0, 0);
    assert.equal(startOf("2026-11-20T08:00:00Z"), instant);
    assert.equal(startOf("2026-11-20T08:00:00+00:00"), instant);
    assert.equal(startOf("2026-11-20T13:30:00+05:30"), instant);
    assert.equal(startOf("2026-11-20T00:00:00-08:00"), instant);
    assert.equal(startOf("2026-11-20T08:00:00.250Z"), instant + 250);
    // Python's isoformat: microseconds, kept to the millisecond; T and Z in either case.
    assert.equal(startOf("2026-11-20T08:00:00.250999+00:00"), instant + 250);
    assert.equal(startOf("2026-11-20t08:00:00z"), instant);
    assert.equal(startOf("0099-01-01T00:00:00Z"), Date.parse("0099-01-01T00:00:00Z"));
  });

  it("refuse dates and times that do not exist, and other layouts, naming the parameter", () => {
    for (const text of [
      "2026-02-30T00:00:00Z",
      "2026-11-20T24:00:00Z",
      "2026-11-20T08:60:00Z",
      "2026-11-20T08:00:00+24:00",
      "2026-11-20 08:00:00Z",
      "2026-11-20T08:00:00",
      "1763625600",
    ]) {
      const refused = refusal(search, [
        ["query", "coffee"],
        ["start_time", text],
      ]);
      assert.deepEqual(refused.details, [
        { parameter: "start_time", message: "must be an RFC 3339 timestamp such as 2026-11-20T08:00:00Z" },
      ]);
    }
  });
});
