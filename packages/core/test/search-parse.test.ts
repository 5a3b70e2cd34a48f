import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { SearchNode } from "../src/search/ast.ts";
import { SearchSyntaxError, type SearchSyntaxProblem } from "../src/search/errors.ts";
import { parseQuery, SEARCH_QUERY_LIMITS } from "../src/search/parse.ts";
import { printQuery } from "../src/search/print.ts";
import { leafCount } from "./search-arbitraries.ts";

const term = (value: string): SearchNode => ({ kind: "term", value });
const phrase = (value: string): SearchNode => ({ kind: "phrase", value });
const and = (...children: SearchNode[]): SearchNode => ({ kind: "and", children });
const or = (...children: SearchNode[]): SearchNode => ({ kind: "or", children });
const not = (child: SearchNode): SearchNode => ({ kind: "not", child });

function parseError(query: string): SearchSyntaxError {
  try {
    parseQuery(query);
  } catch (error) {
    if (error instanceof SearchSyntaxError) return error;
    throw error;
  }
  assert.fail(`${JSON.stringify(query)} parsed without error`);
}

describe("parseQuery: operators", () => {
  const cases: [string, SearchNode][] = [
    ["hello", term("hello")],
    ["Héllo!", term("hello")],
    ['"Hello, World"', phrase("hello world")],
    ['"single"', phrase("single")],
    ["#AI", { kind: "hashtag", value: "ai" }],
    ["#Café_2", { kind: "hashtag", value: "cafe_2" }],
    ["#日本", { kind: "hashtag", value: "日本" }],
    ["$TSLA", { kind: "cashtag", value: "tsla" }],
    ["$abcdefghijklmno", { kind: "cashtag", value: "abcdefghijklmno" }],
    ["from:Alice_1", { kind: "from", username: "alice_1" }],
    ["lang:EN", { kind: "lang", code: "en" }],
    ["lang:zh-TW", { kind: "lang", code: "zh-tw" }],
    ["lang:und", { kind: "lang", code: "und" }],
    ["since:2025-01-31", { kind: "since", date: "2025-01-31" }],
    ["until:2024-02-29", { kind: "until", date: "2024-02-29" }],
    ["since:2000-02-29", { kind: "since", date: "2000-02-29" }],
    ["min_faves:0", { kind: "min_faves", count: 0 }],
    ["min_faves:007", { kind: "min_faves", count: 7 }],
    ["min_retweets:999999999", { kind: "min_retweets", count: 999_999_999 }],
    ["filter:links", { kind: "filter", filter: "links" }],
    ["filter:replies", { kind: "filter", filter: "replies" }],
    ["filter:media", { kind: "filter", filter: "media" }],
    ["is:retweet", { kind: "filter", filter: "retweets" }],
    ["is:reply", { kind: "filter", filter: "replies" }],
    ["is:quote", { kind: "filter", filter: "quotes" }],
    ["is:verified", { kind: "filter", filter: "verified" }],
    ["has:links", { kind: "filter", filter: "links" }],
    ["has:media", { kind: "filter", filter: "media" }],
    ["has:hashtags", { kind: "filter", filter: "hashtags" }],
    ["has:mentions", { kind: "filter", filter: "mentions" }],
    ["-is:retweet", { kind: "not", child: { kind: "filter", filter: "retweets" } }],
    ["conversation_id:00123", { kind: "conversation", id: "123" }],
    ["to:Jack_1", { kind: "to", username: "jack_1" }],
    ["since_id:1800000000000000001", { kind: "since_id", id: "1800000000000000001" }],
    ["until_id:42", { kind: "until_id", id: "42" }],
    ["-is:nullcast", { kind: "not", child: { kind: "filter", filter: "nullcast" } }],
    // A user id, as X takes it: up to 19 digits, past a username's 15.
    ["from:2244994945", { kind: "from", username: "2244994945" }],
    ["to:1234567890123456789", { kind: "to", username: "1234567890123456789" }],
    // Past the largest id accepted: since_id: the same bound as that id (no tweet passes either), until_id:
    // the ceiling one past it (every tweet passes either), each an int64 a store can add one to or bind.
    ["since_id:9999999999999999999", { kind: "since_id", id: "9223372036854775806" }],
    ["until_id:9999999999999999999", { kind: "until_id", id: "9223372036854775807" }],
    ["conversation_id:9999999999999999999", { kind: "conversation", id: "9999999999999999999" }],
    ["since:2025-03-10T08:30:00Z", { kind: "since", date: "2025-03-10T08:30:00.000Z" }],
    ["until:2025-03-10T08:30:00.5Z", { kind: "until", date: "2025-03-10T08:30:00.500Z" }],
  ];
  for (const [query, ast] of cases) {
    it(`parses ${query}`, () => assert.deepEqual(parseQuery(query), ast));
  }
});

describe("parseQuery: structure and precedence", () => {
  const cases: [string, SearchNode][] = [
    ["a b", and(term("a"), term("b"))],
    ["a b OR c", or(and(term("a"), term("b")), term("c"))],
    ["a OR b c", or(term("a"), and(term("b"), term("c")))],
    ["a (b OR c)", and(term("a"), or(term("b"), term("c")))],
    ["-(a OR b)", not(or(term("a"), term("b")))],
    ["-(a b) c", and(not(and(term("a"), term("b"))), term("c"))],
    ["-from:x", not({ kind: "from", username: "x" })],
    ["-filter:replies", not({ kind: "filter", filter: "replies" })],
    ['"a b" OR #c', or(phrase("a b"), { kind: "hashtag", value: "c" })],
    [
      '-"a b" -#c -$d',
      and(not(phrase("a b")), not({ kind: "hashtag", value: "c" }), not({ kind: "cashtag", value: "d" })),
    ],
    ["a OR b OR c", or(term("a"), term("b"), term("c"))],
    ["(a OR b) OR c", or(term("a"), term("b"), term("c"))],
    ["(a b) c", and(term("a"), term("b"), term("c"))],
    ["((a))", term("a")],
    ["-(a)", not(term("a"))],
    ["a OR(b)c", or(term("a"), and(term("b"), term("c")))],
    ['a"b c"d', and(term("a"), phrase("b c"), term("d"))],
  ];
  for (const [query, ast] of cases) {
    it(`parses ${query}`, () => assert.deepEqual(parseQuery(query), ast));
  }
});

describe("parseQuery: normalization decisions", () => {
  const cases: [string, SearchNode, string][] = [
    ["--a", term("a"), "double negation is removed"],
    ["-(-a)", term("a"), "double negation through a group is removed"],
    ["---a", not(term("a")), "an odd number of minus signs negates"],
    ["a or b", and(term("a"), term("or"), term("b")), "lowercase or is a term"],
    ["a AND b", and(term("a"), term("and"), term("b")), "AND is not an operator"],
    ["-OR a", and(not(term("or")), term("a")), "a negated OR is a term"],
    ["don't", phrase("don t"), "a word of several tokens is their phrase"],
    ["e-mail", phrase("e mail"), "a hyphenated word is a phrase"],
    ["!#ai", phrase("#ai"), "a lone #token not written as a hashtag stays a phrase"],
    ["a - b !!! ...", and(term("a"), term("b")), "words without tokens are ignored"],
    ["a -!!!", term("a"), "a negated word without tokens is ignored"],
    ["\tA\u00a0\nB ", and(term("a"), term("b")), "any Unicode whitespace separates words"],
  ];
  for (const [query, ast, why] of cases) {
    it(`${why}: ${JSON.stringify(query)}`, () => assert.deepEqual(parseQuery(query), ast));
  }
});

describe("parseQuery: limits", () => {
  const { maxLength, maxLeaves, maxDepth } = SEARCH_QUERY_LIMITS;

  it("accepts a query at every limit", () => {
    assert.equal(parseQuery(`"${"a ".repeat((maxLength - 2) / 2)}"`).kind, "phrase");
    assert.equal(leafCount(parseQuery(Array(maxLeaves).fill("a").join(" "))), maxLeaves);
    assert.deepEqual(parseQuery(`${"(".repeat(maxDepth)}a${")".repeat(maxDepth)}`), term("a"));
  });

  it("refuses a query whose canonical form would not fit, so that printing it always parses back", () => {
    // 46 words of 9 characters: 459 characters written, 551 once each is printed as a quoted phrase.
    const query = Array(46).fill("abcd-efgh").join(" ");
    const error = parseError(query);
    assert.equal(error.problem, "query_too_long");
    assert.equal(error.position, query.length);
  });
});

describe("parseQuery: errors", () => {
  const cases: [string, SearchSyntaxProblem, number][] = [
    ["(a", "unbalanced_parenthesis", 0],
    ["a (b", "unbalanced_parenthesis", 2],
    ["((a)", "unbalanced_parenthesis", 0],
    ["a)", "unbalanced_parenthesis", 1],
    ["(a))", "unbalanced_parenthesis", 3],
    ['a "b c', "unterminated_quote", 2],
    ['a -"b', "unterminated_quote", 3],
    ['a "!!"', "empty_phrase", 2],
    ['""', "empty_phrase", 0],
    ["a ()", "empty_group", 2],
    ["-( )", "empty_group", 1],
    ["(!!!)", "empty_group", 0],
    ["", "empty_query", 0],
    ["   ", "empty_query", 0],
    ["!!! - --", "empty_query", 0],
    ["OR a", "dangling_or", 0],
    ["a OR", "dangling_or", 2],
    ["a OR OR b", "dangling_or", 5],
    ["(a OR) b", "dangling_or", 3],
    ["a (OR b)", "dangling_or", 3],
    ["foo:bar", "unknown_operator", 0],
    ["a colour:x", "unknown_operator", 2],
    ["a url:x", "unsupported_operator", 2],
    ["place:paris", "unsupported_operator", 0],
    ["has:geo", "unsupported_operator", 4],
    ["is:retweeted", "bad_filter", 3],
    ["has:link", "bad_filter", 4],
    ["conversation_id:abc", "bad_number", 16],
    ["since_id:12345678901234567890", "bad_number", 9],
    ["to:a-b", "bad_username", 3],
    ["since:2025-03-10T25:00:00Z", "bad_date", 6],
    ["until:2025-02-30T00:00:00Z", "bad_date", 6],
    ["since:2025-03-10T10:00:00", "bad_date", 6],
    ["a -FROM:x", "unknown_operator", 3],
    ["10:30", "unknown_operator", 0],
    ["constructor:x", "unknown_operator", 0],
    ["__proto__:x", "unknown_operator", 0],
    ["from:", "missing_value", 5],
    ["a lang: b", "missing_value", 7],
    ["since:", "missing_value", 6],
    ["filter:)", "missing_value", 7],
    ["from:this_is_sixteen1", "bad_username", 5],
    ["from:12345678901234567890", "bad_username", 5],
    ["from:a-b", "bad_username", 5],
    ["from:a:b", "bad_username", 5],
    ["lang:e", "bad_lang", 5],
    ["lang:english", "bad_lang", 5],
    ["lang:en_us", "bad_lang", 5],
    ["since:2025-02-30", "bad_date", 6],
    ["until:2023-02-29", "bad_date", 6],
    ["since:1900-02-29", "bad_date", 6],
    ["since:2025-13-01", "bad_date", 6],
    ["since:2025-00-10", "bad_date", 6],
    ["until:2025-01-00", "bad_date", 6],
    ["since:2025-1-01", "bad_date", 6],
    ["since:yesterday", "bad_date", 6],
    ["min_faves:-1", "bad_number", 10],
    ["min_retweets:1.5", "bad_number", 13],
    ["min_faves:1e3", "bad_number", 10],
    ["min_faves:1234567890", "bad_number", 10],
    ["filter:images", "bad_filter", 7],
    ["filter:Links", "bad_filter", 7],
    ["#", "bad_hashtag", 0],
    ["a -#ai!", "bad_hashtag", 3],
    ["#a#b", "bad_hashtag", 0],
    ["$100", "bad_cashtag", 0],
    ["$", "bad_cashtag", 0],
    ["$abcdefghijklmnop", "bad_cashtag", 0],
    ["$tsla.x", "bad_cashtag", 0],
    ["a".repeat(513), "query_too_long", 512],
    [Array(51).fill("ab").join(" "), "too_complex", 150],
    [`${"(".repeat(11)}a${")".repeat(11)}`, "too_complex", 10],
  ];
  for (const [query, problem, position] of cases) {
    it(`refuses ${JSON.stringify(query.length > 40 ? `${query.slice(0, 40)}…` : query)} as ${problem} at ${position}`, () => {
      const error = parseError(query);
      assert.equal(error.problem, problem);
      assert.equal(error.position, position);
      assert.match(error.message, new RegExp(` at position ${position}: `));
    });
  }

  it("reports the leftmost problem", () => {
    assert.equal(parseError('a) "b').problem, "unbalanced_parenthesis");
    assert.equal(parseError('"b a)').problem, "unterminated_quote");
  });

  it("writes a message naming the problem and its position", () => {
    const error = parseError("hello (world");
    assert.equal(error.message, 'Unbalanced parenthesis at position 6: "(" is never closed');
    assert.equal(error.name, "SearchSyntaxError");
    assert.ok(error instanceof Error);
  });

  it("refuses hostile input quickly and without exhausting the stack", () => {
    const hostile = [
      "(".repeat(1_000_000),
      "-".repeat(512),
      "(".repeat(512),
      `${"(".repeat(10)}${"a OR ".repeat(50)}`,
      '"'.repeat(511),
      "a:".repeat(256),
    ];
    for (const query of hostile) assert.ok(parseError(query) instanceof SearchSyntaxError);
  });
});

describe("parseQuery: properties", () => {
  // Characters and words that the grammar gives a meaning to, so random queries exercise every path.
  const pieces = fc.constantFrom(
    "(",
    ")",
    '"',
    "-",
    ":",
    "#",
    "$",
    " ",
    " ",
    "OR",
    " OR ",
    "or",
    "from:",
    "lang:",
    "since:",
    "until:",
    "min_faves:",
    "min_retweets:",
    "filter:",
    "links",
    "replies",
    "2025-01-31",
    "12",
    "a",
    "Bé",
    "_",
    "!",
    "\u0301",
    "\t",
    "constructor:",
  );
  const queries = fc.oneof(
    fc.array(pieces, { maxLength: 40 }).map((parts) => parts.join("")),
    fc.string({ unit: "binary", maxLength: 60 }),
    fc.string({ unit: "grapheme-ascii", maxLength: 600 }),
  );

  it("throws nothing but SearchSyntaxError, and whatever it returns prints and parses back to itself", () => {
    fc.assert(
      fc.property(queries, (query) => {
        let ast: SearchNode;
        try {
          ast = parseQuery(query);
        } catch (error) {
          assert.ok(error instanceof SearchSyntaxError, String(error));
          assert.ok(error.position >= 0 && error.position <= query.length);
          return;
        }
        assertWellFormed(ast);
        assert.deepEqual(parseQuery(printQuery(ast)), ast);
      }),
      { numRuns: 2000 },
    );
  });
});

/** The invariants ast.ts states: and/or have two or more children and do not nest in their own kind. */
function assertWellFormed(node: SearchNode): void {
  if (node.kind === "not") {
    assert.notEqual(node.child.kind, "not");
    assertWellFormed(node.child);
  } else if (node.kind === "and" || node.kind === "or") {
    assert.ok(node.children.length >= 2);
    for (const child of node.children) {
      assert.notEqual(child.kind, node.kind);
      assertWellFormed(child);
    }
  }
}
