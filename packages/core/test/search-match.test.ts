import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { SearchDocument, SearchNode } from "../src/search/ast.ts";
import { matches } from "../src/search/match.ts";
import { parseQuery, SEARCH_QUERY_LIMITS } from "../src/search/parse.ts";
import { printQuery } from "../src/search/print.ts";
import { leafCount, searchDocumentArbitrary, searchNode } from "./search-arbitraries.ts";

const doc: SearchDocument = {
  text: "Naïve Bayes in Bun, don't panic! #AI #Café_Society $TSLA e-mail https://t.co/x",
  authorUsername: "Alice_1",
  lang: "en",
  createdAt: "2025-03-10T00:00:00.000Z",
  likeCount: 10,
  retweetCount: 3,
  hasLinks: true,
  isReply: false,
  isRetweet: false,
  isQuote: true,
  hasMedia: false,
  hasHashtags: true,
  hasMentions: false,
  authorVerified: true,
  id: "1800000000000000001",
  conversationId: "2072230523330000",
  replyToUsername: "Bob",
};

const match = (query: string, on: Partial<SearchDocument> = {}) => matches(parseQuery(query), { ...doc, ...on });

describe("matches: each operator", () => {
  const cases: [string, string, boolean][] = [
    ["a term, ignoring case and diacritics", "naive", true],
    ["a term written with case and accents", "NAÏVE", true],
    ["a term the text lacks", "bayesian", false],
    ["a bare word does not match a hashtag", "ai", false],
    ["a term inside a hashtag does not match", "society", false],
    ["a phrase of consecutive tokens", '"naive bayes"', true],
    ["a phrase across punctuation", '"bun don t panic"', true],
    ["a phrase with the tokens out of order", '"bayes naive"', false],
    ["a phrase with a gap", '"naive in"', false],
    ["a multi-token word as a phrase", "e-mail", true],
    ["a split word in the other order", "mail-e", false],
    ["a hashtag, case-insensitively", "#ai", true],
    ["a hashtag with diacritics", "#cafe_society", true],
    ["a hashtag that is only a prefix of one", "#cafe", false],
    ["a hashtag of a word written without #", "#bayes", false],
    ["a cashtag", "$tsla", true],
    ["a cashtag the text lacks", "$aapl", false],
    ["from, case-insensitively", "from:alice_1", true],
    ["from another author", "from:alice", false],
    ["lang, case-insensitively", "lang:EN", true],
    ["another lang", "lang:fr", false],
    ["since the same instant", "since:2025-03-10", true],
    ["since the next day", "since:2025-03-11", false],
    ["until the same day, which is exclusive", "until:2025-03-10", false],
    ["until the next day", "until:2025-03-11", true],
    ["min_faves at the count", "min_faves:10", true],
    ["min_faves above the count", "min_faves:11", false],
    ["min_retweets at the count", "min_retweets:3", true],
    ["min_retweets above the count", "min_retweets:4", false],
    ["filter:links with a URL entity", "filter:links", true],
    ["filter:replies on a tweet that is not a reply", "filter:replies", false],
    ["a negated operator", "-filter:replies", true],
    ["since an instant before", "since:2025-03-09T23:59:59Z", true],
    ["until that very instant, which is exclusive", "until:2025-03-10T00:00:00.000Z", false],
    ["X's is:quote", "is:quote", true],
    ["X's is:retweet on a quote", "is:retweet", false],
    ["X's -is:retweet", "-is:retweet", true],
    ["X's is:reply", "is:reply", false],
    ["X's is:verified, of the author", "is:verified", true],
    ["X's has:links", "has:links", true],
    ["X's has:media", "has:media", false],
    ["X's has:hashtags", "has:hashtags", true],
    ["X's has:mentions", "has:mentions", false],
    ["filter:quotes, the same as is:quote", "filter:quotes", true],
    ["conversation_id: of its conversation", "conversation_id:2072230523330000", true],
    ["conversation_id: of another", "conversation_id:1800000000000000001", false],
    ["to: the user replied to, case-insensitively", "to:bob", true],
    ["to: another user", "to:alice_1", false],
    ["since_id: one below its id, past 2^53", "since_id:1800000000000000000", true],
    ["since_id: its own id, which is exclusive", "since_id:1800000000000000001", false],
    ["until_id: one above its id", "until_id:1800000000000000002", true],
    ["until_id: its own id, which is exclusive", "until_id:1800000000000000001", false],
    ["a negated term the text holds", "-bun", false],
    ["AND needs every item", "bun panic", true],
    ["AND fails on one missing item", "bun deno", false],
    ["OR needs one item", "deno OR bun", true],
    ["OR fails when no item matches", "deno OR node", false],
    ["AND binds tighter than OR", "deno bun OR panic", true],
    ["a negated group", "-(deno OR node)", true],
    ["negations only match everything else", "-deno -node", true],
  ];
  for (const [why, query, expected] of cases) {
    it(`${expected ? "matches" : "does not match"} ${why}: ${query}`, () => assert.equal(match(query), expected));
  }

  it("checks the document's fields, not fixed answers", () => {
    assert.equal(match("filter:links", { hasLinks: false }), false);
    assert.equal(match("filter:replies", { isReply: true }), true);
    assert.equal(match("since:2025-03-10", { createdAt: "2025-03-09T23:59:59.999Z" }), false);
    assert.equal(match("until:2025-03-10", { createdAt: "2025-03-09T23:59:59.999Z" }), true);
    assert.equal(match("from:ALICE_1", { authorUsername: "alice_1" }), true);
    assert.equal(match("lang:zh-tw", { lang: "zh-TW" }), true);
    assert.equal(match("#ai", { text: "no tags here" }), false);
  });

  it("treats the values of a hand-built AST as the store would", () => {
    assert.equal(matches({ kind: "term", value: "Café" }, { ...doc, text: "le cafe" }), true);
    assert.equal(matches({ kind: "phrase", value: "Le  Café!" }, { ...doc, text: "le cafe" }), true);
    assert.equal(matches({ kind: "phrase", value: "!!!" }, doc), false);
  });
});

describe("matches: properties", () => {
  const fits = (ast: SearchNode) =>
    leafCount(ast) <= SEARCH_QUERY_LIMITS.maxLeaves && printQuery(ast).length <= SEARCH_QUERY_LIMITS.maxLength;

  it("matches not x exactly when it does not match x", () => {
    fc.assert(
      fc.property(searchNode, searchDocumentArbitrary, (node, d) => {
        assert.equal(matches({ kind: "not", child: node }, d), !matches(node, d));
      }),
      { numRuns: 1000 },
    );
  });

  it("matches and/or as boolean and/or over their children", () => {
    const children = fc.array(searchNode, { minLength: 2, maxLength: 4 });
    fc.assert(
      fc.property(children, searchDocumentArbitrary, (nodes, d) => {
        const each = nodes.map((node) => matches(node, d));
        assert.equal(matches({ kind: "and", children: nodes }, d), each.every(Boolean));
        assert.equal(matches({ kind: "or", children: nodes }, d), each.some(Boolean));
      }),
      { numRuns: 1000 },
    );
  });

  it("gives the printed and parsed query the meaning of the original", () => {
    fc.assert(
      fc.property(searchNode.filter(fits), searchDocumentArbitrary, (node, d) => {
        assert.equal(matches(parseQuery(printQuery(node)), d), matches(node, d));
      }),
      { numRuns: 1000 },
    );
  });

  it("finds matches and misses in random data, so the properties above are not vacuous", () => {
    const outcomes = fc
      .sample(fc.tuple(searchNode, searchDocumentArbitrary), { numRuns: 500, seed: 1 })
      .map(([node, d]) => matches(node, d));
    assert.ok(outcomes.filter(Boolean).length > 50);
    assert.ok(outcomes.filter((outcome) => !outcome).length > 50);
  });
});
