import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CostRule } from "../../src/billing/costs.ts";
import { FLAT, PER_50_ITEMS, PER_ITEM } from "../../src/billing/costs.ts";
import { fewerItemsOf, insufficientCredits, type Shortfall } from "../../src/billing/credit-refusal.ts";
import { followers } from "../../src/catalogue/graph.ts";
import { searchRecent } from "../../src/catalogue/search.ts";
import { quotes, tweets } from "../../src/catalogue/tweets.ts";
import type { Endpoint } from "../../src/endpoint.ts";

/** A refusal for the account's balance, as the ledger reports it. */
const KEY = "key_test";
const balance = (remaining: number): Shortfall => ({ ok: false, reason: "balance", remaining });
/** The refused request, asking for fewer items in the endpoint's own parameters. */
const asked = (endpoint: Endpoint, params: Record<string, unknown>, rule: CostRule) => ({
  rule,
  fewer: fewerItemsOf(endpoint, params),
});

describe("a 402's details", () => {
  it("name the largest limit the balance covers, where the limit is the page size", () => {
    const error = insufficientCredits(21, balance(8), KEY, asked(searchRecent, { query: "a", limit: 20 }, PER_ITEM));
    assert.deepEqual(error.credits, { reason: "balance", required: 21, remaining: 8, fits: { limit: 7 } });
    assert.match(
      error.message,
      /costs 21 credits and the account has 8 remaining\. The same request with limit=7 fits/,
    );
  });

  it("name fewer ids for a lookup by ids", () => {
    const ids = ["1", "2", "3", "4", "5"];
    const error = insufficientCredits(6, balance(3), KEY, asked(tweets, { ids }, PER_ITEM));
    assert.deepEqual(error.credits?.fits, { ids: 2 });
  });

  it("count 50 ids a credit in followers' ids mode, and offer no limit in profiles mode, where it is not the page size", () => {
    const ids = insufficientCredits(
      101,
      balance(3),
      KEY,
      asked(followers, { id: "1", mode: "ids", limit: 5000 }, PER_50_ITEMS),
    );
    assert.deepEqual(ids.credits?.fits, { limit: 100 });
    const profiles = insufficientCredits(
      21,
      balance(3),
      KEY,
      asked(followers, { id: "1", mode: "profiles", limit: 5000 }, PER_ITEM),
    );
    assert.equal(profiles.credits?.fits, undefined);
  });

  it("offer nothing when no smaller request fits: a fixed page, a flat cost, or not even the base", () => {
    for (const [endpoint, params, rule, remaining] of [
      [quotes, { id: "7" }, PER_ITEM, 5],
      [searchRecent, { query: "a", limit: 20 }, PER_ITEM, 1],
      [searchRecent, { query: "a", limit: 20 }, PER_ITEM, 0],
      [tweets, { ids: ["1"] }, FLAT, 0],
    ] as const) {
      const error = insufficientCredits(21, balance(remaining), KEY, asked(endpoint, params, rule));
      assert.equal(error.credits?.fits, undefined);
      assert.doesNotMatch(error.message, /fits the balance/);
    }
  });

  it("leave out the fit where no lever is known, and name it in the caller's own parameters where one is", () => {
    assert.deepEqual(insufficientCredits(21, balance(8), KEY).credits, {
      reason: "balance",
      required: 21,
      remaining: 8,
    });
    const maxResults = { rule: PER_ITEM, fewer: (items: number) => ({ max_results: items }) };
    assert.deepEqual(insufficientCredits(21, balance(8), KEY, maxResults).credits?.fits, { max_results: 7 });
  });

  it("say 1 credit, not 1 credits", () => {
    const error = insufficientCredits(1, balance(0), KEY);
    assert.match(error.message, /costs 1 credit and the account has 0 remaining\./);
  });
});
