import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError } from "../src/errors.ts";
import { parseMonitorQuery } from "../src/monitors/query.ts";
import { parseQuery } from "../src/search/parse.ts";

function refusal(query: string): ApiError {
  try {
    parseMonitorQuery(query);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  assert.fail(`${JSON.stringify(query)} was accepted`);
}

describe("parseMonitorQuery", () => {
  it("accepts a query whose every match holds a word, phrase, tag, user, conversation or language", () => {
    const queries = [
      "coffee",
      '"good morning" -is:retweet',
      "#ai OR $tsla",
      "from:alice min_faves:10",
      "to:bob filter:links",
      "conversation_id:1800000000000000001",
      "lang:en -is:retweet",
      "(coffee OR tea) -decaf",
      "(coffee OR from:alice) min_faves:5",
      "-is:reply (#ai OR (lang:fr -bonjour))",
    ];
    for (const query of queries) assert.deepEqual(parseMonitorQuery(query), parseQuery(query), query);
  });

  it("refuses a query that a post may match without holding any of them", () => {
    const queries = [
      "-is:retweet",
      "min_faves:100",
      "filter:links has:media",
      "coffee OR -tea",
      "coffee OR min_faves:10",
      "-(coffee tea)",
      "-from:alice -lang:en",
    ];
    for (const query of queries) {
      const error = refusal(query);
      assert.equal(error.code, "invalid_request", query);
      assert.match(
        error.message,
        /every post a monitor matches must hold one of a word, phrase, hashtag, cashtag, from:, to:, conversation_id: or lang:/,
      );
      assert.match(error.message, /Add one that is not negated/);
      assert.deepEqual(error.details?.[0]?.parameter, "query");
    }
  });

  it("refuses time bounds anywhere in the query, naming the operator", () => {
    const cases: [string, string][] = [
      ["coffee since:2026-11-01", "since:"],
      ["coffee until:2026-11-01T08:00:00Z", "until:"],
      ["coffee OR (tea since_id:42)", "since_id:"],
      ["coffee -until_id:42", "until_id:"],
    ];
    for (const [query, operator] of cases) {
      const error = refusal(query);
      assert.equal(error.code, "invalid_request", query);
      assert.ok(error.message.startsWith(`query: ${operator} is not allowed`), error.message);
      assert.match(error.message, /a monitor matches posts as they arrive; time bounds do not apply/);
      assert.match(error.message, new RegExp(`Remove ${operator}$`));
    }
  });

  it("refuses what the search parser refuses, with its message and bounds", () => {
    const unbalanced = refusal("(coffee");
    assert.equal(unbalanced.code, "invalid_request");
    assert.match(unbalanced.message, /^query: Unbalanced parenthesis at position 0/);
    assert.match(refusal(`coffee ${"x".repeat(512)}`).message, /^query: Query too long/);
    assert.match(refusal(Array.from({ length: 51 }, (_, i) => `w${i}`).join(" ")).message, /^query: Query too complex/);
  });
});
