// The catalogue against the contract itself: SPEC.md's endpoint tables are parsed and every row must
// have exactly one entry with the same path and cost rule, and the /2 mapping must match.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import * as communities from "../src/catalogue/communities.ts";
import * as graph from "../src/catalogue/graph.ts";
import * as lists from "../src/catalogue/lists.ts";
import * as search from "../src/catalogue/search.ts";
import * as tweets from "../src/catalogue/tweets.ts";
import * as users from "../src/catalogue/users.ts";
import * as workflows from "../src/catalogue/workflows.ts";
import {
  catalogue,
  costRuleFor,
  describeCostRule,
  describeEndpointCost,
  type Endpoint,
  guidanceReferences,
  pathParamNames,
  renderGuidance,
} from "../src/index.ts";
import { validateParams } from "../src/pipeline/index.ts";

// The contract lives beside the repository (../shared), not in it: a clone on its own runs every other
// test, and says plainly that these were skipped.
const SPEC = new URL("../../../../shared/SPEC.md", import.meta.url);
const specMissing = existsSync(SPEC) ? false : "../shared/SPEC.md is not beside the repository";
if (specMissing) console.warn(`catalogue.test.ts: the tests against SPEC.md are skipped: ${specMissing}`);
const spec = specMissing ? "" : readFileSync(SPEC, "utf8");

function tableRows(heading: string): string[][] {
  const section = spec.split(`### ${heading}`)[1]?.split("\n### ")[0] ?? "";
  return section
    .split("\n")
    .filter((line) => line.startsWith("| /"))
    .map((line) =>
      line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

const v1Rows = ["/v1 Basic Reads", "/v1 Enriched Reads", "/v1 Workflow APIs"].flatMap(tableRows);
const specCost: Record<string, string> = {
  "Flat 1": "1 credit per request",
  "1 base + 1 per item": "1 credit + 1 per returned item",
  "1 base + 2 per item": "1 credit + 2 per returned item",
  "1 base + 1 per 50 items": "1 credit + 1 per 50 returned items (rounded up)",
};

function entry(path: string): Endpoint {
  const found = catalogue.filter((endpoint) => endpoint.path === path);
  assert.equal(found.length, 1, `exactly one entry for ${path}`);
  return found[0] as Endpoint;
}

function costText(endpoint: Endpoint, params: Record<string, unknown> = {}): string {
  return describeCostRule(costRuleFor(endpoint, params));
}

describe("the catalogue against SPEC.md", { skip: specMissing }, () => {
  it("holds the 31 /v1 paths of SPEC.md, and beside them only entries that say why they are beyond it", () => {
    assert.equal(v1Rows.length, 31);
    const spec = catalogue.filter((e) => e.beyond === undefined);
    assert.deepEqual(new Set(spec.map((e) => e.path)), new Set(v1Rows.map((row) => row[0])));
    assert.equal(spec.length, 31);
    const beyond = catalogue.filter((e) => e.beyond !== undefined);
    assert.deepEqual(
      beyond.map((e) => [e.path, e.v2?.path]),
      [
        ["/v1/users/by-usernames", "/2/users/by"],
        ["/v1/search/counts", "/2/tweets/counts/recent"],
        ["/v1/users/{id}/mentions", "/2/users/{id}/mentions"],
      ],
    );
  });

  it("charges what SPEC.md's tables say", () => {
    for (const [path, , , cost] of v1Rows) {
      const endpoint = entry(path as string);
      if (cost?.startsWith("mode=ids") || cost === "same as followers") {
        assert.equal(costText(endpoint, { mode: "ids" }), specCost["1 base + 1 per 50 items"]);
        assert.equal(costText(endpoint, { mode: "profiles" }), specCost["1 base + 1 per item"]);
      } else if (cost === "cost: not shown") {
        assert.ok(["/v1/communities/search", "/v1/trends"].includes(path as string));
      } else {
        assert.equal(costText(endpoint), specCost[cost as string], path);
      }
    }
    assert.equal(costText(entry("/v1/communities/search")), specCost["1 base + 1 per item"]);
    assert.equal(costText(entry("/v1/trends")), specCost["Flat 1"]);
  });

  it("maps exactly SPEC.md's /2 paths", () => {
    const mapping = (spec.split("Path mapping from /v1 to /2:")[1] ?? "")
      .split("\n")
      .filter((line) => line.startsWith("| /v1/"))
      .map((line) =>
        line
          .split("|")
          .slice(1, -1)
          .map((cell) => cell.trim()),
      );
    assert.equal(mapping.length, 14);
    const toOpenApi = (path: string) => path.replace(/\?.*$/, "").replace(/:(\w+)/g, "{$1}");
    const expected = new Map(mapping.map(([v1, v2]) => [toOpenApi(v1 as string), toOpenApi(v2 as string)]));
    const mapped = catalogue.filter((e) => e.beyond === undefined);
    const actual = new Map(mapped.flatMap((e) => (e.v2 ? [[e.path, e.v2.path]] : [])));
    assert.deepEqual(actual, expected);
  });
});

describe("catalogue", () => {
  it("describes a mode-dependent cost mode by mode", () => {
    assert.equal(
      describeEndpointCost(entry("/v1/users/{id}/followers")),
      `mode=ids: ${specCost["1 base + 1 per 50 items"]}; mode=profiles: ${specCost["1 base + 1 per item"]}`,
    );
    assert.equal(describeEndpointCost(entry("/v1/tweets/{id}")), specCost["Flat 1"]);
  });

  it("has unique ids and tool names, a summary and guidance for every entry", () => {
    assert.equal(new Set(catalogue.map((e) => e.id)).size, catalogue.length);
    assert.equal(new Set(catalogue.map((e) => e.tool)).size, catalogue.length);
    for (const endpoint of catalogue) {
      assert.match(endpoint.tool, /^[a-z][a-z_]*$/);
      assert.ok(endpoint.summary.length > 10 && !endpoint.summary.includes("\n"), endpoint.id);
      assert.ok(
        endpoint.guidance.length > 0 && endpoint.guidance.every((sentence) => sentence.length > 10),
        endpoint.id,
      );
    }
  });

  it("declares every path parameter in the params schema", () => {
    for (const endpoint of catalogue) {
      for (const name of pathParamNames(endpoint.path)) {
        assert.ok(name in endpoint.params.entries, `${endpoint.id}: ${name}`);
      }
    }
  });

  it("serves every entry of the toolset files, each from its own toolset's file", () => {
    const files = { search, users, graph, tweets, lists, communities, workflows };
    const defined = Object.entries(files).flatMap(([toolset, entries]) =>
      Object.values(entries).map((entry) => {
        assert.equal(entry.toolset, toolset, entry.id);
        return entry;
      }),
    );
    assert.deepEqual(new Set(defined), new Set(catalogue));
  });

  it("names a world example for every required parameter and for no other", () => {
    const optional = new Set(["optional", "exact_optional", "nullish"]);
    for (const endpoint of catalogue) {
      const entries = Object.entries(endpoint.params.entries);
      const required = entries.filter(([, schema]) => !optional.has(schema.type)).map(([name]) => name);
      assert.deepEqual(Object.keys(endpoint.examples).sort(), required.sort(), endpoint.id);
    }
  });

  it("pages exactly the endpoints that accept next_token", () => {
    for (const endpoint of catalogue) {
      assert.equal("next_token" in endpoint.params.entries, endpoint.pageSize !== undefined, endpoint.id);
    }
  });
});

function rejects(path: string, params: Record<string, unknown>, parameter: string) {
  assert.throws(
    () => validateParams(entry(path), params),
    (error: { code: string; details: { parameter: string }[] }) =>
      error.code === "invalid_request" && error.details.some((d) => d.parameter === parameter),
    `${path} ${JSON.stringify(params)} → invalid on ${parameter}`,
  );
}

describe("parameter rules", () => {
  it("applies SPEC.md's defaults", () => {
    assert.deepEqual(validateParams(entry("/v1/search/recent"), { query: "cats" }), {
      query: "cats",
      sort_order: "recency",
      limit: 20,
    });
    assert.deepEqual(validateParams(entry("/v1/users/{id}/followers"), { id: "12" }), { id: "12", mode: "profiles" });
    assert.equal(validateParams(entry("/v1/trends"), {}).woeid, "1");
    assert.equal(validateParams(entry("/v1/trends"), {}).limit, 20);
  });

  it("enforces the bounds of SPEC.md's Limits table", () => {
    const bounds: [string, Record<string, unknown>, number, number][] = [
      ["/v1/search/recent", { query: "a" }, 1, 20],
      ["/v1/search/recent/enriched", { query: "a" }, 1, 20],
      ["/v1/trends", {}, 1, 100],
      ["/v1/users/{id}/followers", { id: "1", mode: "ids" }, 1, 5000],
      ["/v1/users/{id}/following", { id: "1", mode: "ids" }, 1, 5000],
    ];
    for (const [path, base, min, max] of bounds) {
      assert.equal(validateParams(entry(path), { ...base, limit: min }).limit, min);
      assert.equal(validateParams(entry(path), { ...base, limit: max }).limit, max);
      rejects(path, { ...base, limit: min - 1 }, "limit");
      rejects(path, { ...base, limit: max + 1 }, "limit");
      rejects(path, { ...base, limit: 1.5 }, "limit");
      rejects(path, { ...base, limit: "ten" }, "limit");
    }
  });

  it("refuses the combinations SPEC.md forbids", () => {
    rejects("/v1/users/{id}/followers", { id: "1", limit: 10 }, "limit");
    rejects("/v1/users/{id}/following", { id: "1", mode: "profiles", limit: 10 }, "limit");
    rejects("/v1/communities/{id}/tweets", { id: "1", sort: "recency", time_filter: "day" }, "time_filter");
    rejects("/v1/communities/{id}/tweets", { id: "1", time_filter: "week" }, "time_filter");
    assert.equal(
      validateParams(entry("/v1/communities/{id}/tweets"), { id: "1", sort: "likes", time_filter: "day" }).time_filter,
      "day",
    );
  });

  it("refuses limit on endpoints that only continue with next_token", () => {
    for (const endpoint of catalogue) {
      const { entries } = endpoint.params;
      if ("next_token" in entries && !("limit" in entries)) {
        const ids = Object.fromEntries(pathParamNames(endpoint.path).map((name) => [name, "1"]));
        rejects(endpoint.path, { ...ids, limit: 5 }, "limit");
      }
    }
  });

  it("checks ids, usernames and ids lists", () => {
    rejects("/v1/users/{id}", { id: "12a" }, "id");
    rejects("/v1/users/{id}", { id: "1".repeat(20) }, "id");
    rejects("/v1/users/by-username/{username}", { username: "has-dash" }, "username");
    rejects("/v1/users/by-username/{username}", { username: "a".repeat(16) }, "username");
    rejects("/v1/users/relationship", { source: "ok", target: "bad name" }, "target");
    rejects("/v1/users", { ids: "1,,2" }, "ids");
    rejects("/v1/users", { ids: Array.from({ length: 101 }, (_, i) => i + 1).join(",") }, "ids");
    assert.deepEqual(validateParams(entry("/v1/tweets"), { ids: "3,1,3" }).ids, ["3", "1"]);
    rejects("/v1/tweets", {}, "ids");
  });

  it("refuses unknown parameters by name", () => {
    rejects("/v1/tweets/{id}", { id: "1", expansions: "author_id" }, "expansions");
  });
});

describe("guidance", () => {
  const ids = new Set(catalogue.map((endpoint) => endpoint.id));

  it("names other entries only, by id, in sentences of their own", () => {
    for (const endpoint of catalogue) {
      for (const sentence of endpoint.guidance) {
        assert.match(sentence, /^[A-Z"'a-z{].*\.$/, `${endpoint.id}: "${sentence}" is one sentence`);
        for (const id of guidanceReferences(sentence)) {
          assert.ok(ids.has(id as Endpoint["id"]), `${endpoint.id} names ${id}, which is no entry`);
          assert.notEqual(id, endpoint.id, `${endpoint.id} names itself`);
        }
      }
    }
  });

  it("leaves out the sentences that name an entry the surface does not offer", () => {
    const guidance = ["Who is in the community.", "Use {community_moderators} for who runs it."];
    assert.equal(
      renderGuidance(guidance, (id) => (id === "community_moderators" ? "get_community_moderators" : undefined)),
      "Who is in the community. Use get_community_moderators for who runs it.",
    );
    assert.equal(
      renderGuidance(guidance, () => undefined),
      "Who is in the community.",
    );
  });
});
