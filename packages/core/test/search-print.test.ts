import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { SearchNode } from "../src/search/ast.ts";
import { parseQuery, SEARCH_QUERY_LIMITS } from "../src/search/parse.ts";
import { printQuery } from "../src/search/print.ts";
import { leafCount, normalize, searchNode } from "./search-arbitraries.ts";

describe("printQuery", () => {
  const cases: [string, string][] = [
    ["a b OR c", "a b OR c"],
    ["(a b) OR c", "a b OR c"],
    ["a (b OR c)", "a (b OR c)"],
    ["-(a OR b) -(c d) -e", "-(a OR b) -(c d) -e"],
    ['  "Hello,   World"  #AI $TSLA ', '"hello world" #ai $tsla'],
    [
      "from:Alice lang:zh-TW since:2025-01-31 until:2025-02-01",
      "from:alice lang:zh-tw since:2025-01-31 until:2025-02-01",
    ],
    [
      "min_faves:010 min_retweets:0 filter:links -filter:replies",
      "min_faves:10 min_retweets:0 filter:links -filter:replies",
    ],
    ["don't !#ai", '"don t" "#ai"'],
    ["((a OR (b OR c)))", "a OR b OR c"],
  ];
  for (const [query, canonical] of cases) {
    it(`prints ${JSON.stringify(query)} as ${JSON.stringify(canonical)}`, () => {
      assert.equal(printQuery(parseQuery(query)), canonical);
    });
  }

  it("prints a double negation that parses to its simplification", () => {
    const ast: SearchNode = { kind: "not", child: { kind: "not", child: { kind: "term", value: "a" } } };
    assert.deepEqual(parseQuery(printQuery(ast)), { kind: "term", value: "a" });
  });

  it("round-trips every AST: parseQuery(printQuery(ast)) deep-equals the normalized AST", () => {
    const fits = (ast: SearchNode) =>
      leafCount(ast) <= SEARCH_QUERY_LIMITS.maxLeaves && printQuery(ast).length <= SEARCH_QUERY_LIMITS.maxLength;
    fc.assert(
      fc.property(searchNode.filter(fits), (ast) => {
        assert.deepEqual(parseQuery(printQuery(ast)), normalize(ast));
      }),
      { numRuns: 2000 },
    );
  });
});
