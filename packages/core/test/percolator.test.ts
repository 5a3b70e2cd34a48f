import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { type MonitorQuery, Percolator } from "../src/monitors/percolator.ts";
import type { SearchDocument, SearchNode } from "../src/search/ast.ts";
import { matches } from "../src/search/match.ts";
import { parseQuery, SEARCH_QUERY_LIMITS } from "../src/search/parse.ts";
import { printQuery } from "../src/search/print.ts";
import { leafCount, searchDocumentArbitrary, searchNode } from "./search-arbitraries.ts";

const post: SearchDocument = {
  text: "Good morning! Coffee with $TSLA news #Café",
  authorUsername: "Alice",
  lang: "en",
  createdAt: "2026-11-27T08:00:00.000Z",
  likeCount: 12,
  retweetCount: 1,
  hasLinks: false,
  isReply: true,
  isRetweet: false,
  isQuote: false,
  hasMedia: false,
  hasHashtags: true,
  hasMentions: false,
  authorVerified: false,
  id: "1800000000000000001",
  conversationId: "1800000000000000000",
  replyToUsername: "Bob",
};

const monitors = (...queries: string[]): MonitorQuery[] =>
  queries.map((query, index) => ({ id: `m${index}`, query: parseQuery(query) }));

/** What the percolator must equal: every monitor tested. */
const bruteForce = (list: readonly MonitorQuery[], doc: SearchDocument): string[] =>
  list.filter((monitor) => matches(monitor.query, doc)).map((monitor) => monitor.id);

describe("Percolator", () => {
  it("finds the monitors each operator of a post matches, in the order given", () => {
    const list = monitors(
      "coffee",
      '"good morning"',
      "#cafe",
      "$tsla",
      "from:alice",
      "to:bob",
      "conversation_id:1800000000000000000",
      "lang:en",
      "tea",
      '"morning good"',
      "from:bob",
      "lang:fr",
    );
    assert.deepEqual(new Percolator(list).match(post), ["m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7"]);
  });

  it("tests only monitors whose anchor the post holds", () => {
    const list = monitors("tea", "from:bob", "lang:en from:bob", "#tea OR $aapl", '"green tea"', "coffee");
    const percolator = new Percolator(list);
    assert.deepEqual(
      percolator.candidates(post).map((monitor) => monitor.id),
      ["m5"],
    );
    assert.deepEqual(percolator.match(post), ["m5"]);
  });

  it("indexes an AND under its rarest part, so a common language does not make it a candidate", () => {
    const percolator = new Percolator(monitors("lang:en from:bob", "lang:en -is:retweet"));
    assert.deepEqual(
      percolator.candidates(post).map((monitor) => monitor.id),
      ["m1"],
    );
    assert.deepEqual(percolator.match({ ...post, authorUsername: "BOB" }), ["m0", "m1"]);
  });

  it("tests a monitor without an anchor against every post", () => {
    const list: MonitorQuery[] = [
      { id: "quiet", query: parseQuery("-is:retweet") },
      { id: "liked", query: parseQuery("min_faves:10 OR coffee") },
      { id: "tea", query: parseQuery("tea") },
    ];
    const percolator = new Percolator(list);
    assert.deepEqual(percolator.match(post), ["quiet", "liked"]);
    assert.deepEqual(percolator.match({ ...post, text: "tea", likeCount: 0, isRetweet: true }), ["tea"]);
  });

  it("names a monitor once however many of its keys the post holds", () => {
    const percolator = new Percolator(monitors("coffee OR #cafe OR from:alice OR lang:en"));
    assert.deepEqual(percolator.match(post), ["m0"]);
  });

  it("answers exactly what testing every monitor answers, on random queries and posts", () => {
    const fits = (node: SearchNode) =>
      leafCount(node) <= SEARCH_QUERY_LIMITS.maxLeaves && printQuery(node).length <= SEARCH_QUERY_LIMITS.maxLength;
    // Hand-built trees (nested, unsimplified) and the shapes the parser gives, side by side.
    const query = fc.oneof(
      searchNode,
      searchNode.filter(fits).map((node) => parseQuery(printQuery(node))),
    );
    // Some posts reply to no known user.
    const doc = fc.tuple(searchDocumentArbitrary, fc.boolean()).map(([d, reply]): SearchDocument => {
      const { replyToUsername, ...rest } = d;
      return reply ? d : rest;
    });
    const batches = fc.tuple(fc.array(query, { minLength: 20, maxLength: 80 }), fc.array(doc, { maxLength: 20 }));
    let matched = 0;
    let candidates = 0;
    let pairs = 0;
    fc.assert(
      fc.property(batches, ([queries, docs]) => {
        const list = queries.map((q, index) => ({ id: `m${index}`, query: q }));
        const percolator = new Percolator(list);
        for (const d of docs) {
          const found = percolator.match(d);
          assert.deepEqual(found, bruteForce(list, d));
          matched += found.length;
          candidates += percolator.candidates(d).length;
          pairs += list.length;
        }
      }),
      { numRuns: 300, seed: 38 },
    );
    // Not vacuous: posts matched many queries, and the index spared testing most of them.
    assert.ok(matched > 1000, `only ${matched} matches`);
    assert.ok(candidates < pairs * 0.8, `${candidates} candidates of ${pairs}`);
  });
});
