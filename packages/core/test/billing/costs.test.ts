import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { costOf, FLAT, PER_50_ITEMS, PER_ITEM, TWO_PER_ITEM } from "../../src/billing/costs.ts";

describe("cost rules", () => {
  it("flat is 1 whatever the size", () => {
    assert.equal(costOf(FLAT, 0), 1);
    assert.equal(costOf(FLAT, 500), 1);
  });
  it("per item adds 1 or 2 per item to the base", () => {
    assert.equal(costOf(PER_ITEM, 0), 1);
    assert.equal(costOf(PER_ITEM, 20), 21);
    assert.equal(costOf(TWO_PER_ITEM, 20), 41);
  });
  it("per 50 items rounds up", () => {
    assert.deepEqual(
      [0, 1, 49, 50, 51, 100, 101, 5000].map((n) => costOf(PER_50_ITEMS, n)),
      [1, 2, 2, 2, 3, 3, 4, 101],
    );
  });
});
