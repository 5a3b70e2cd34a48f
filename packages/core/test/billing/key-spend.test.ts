// A key's limit: what it leaves, and how a charge and a refund change what the key has spent.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { allowanceOf, charged, type KeySpend, refunded, utcDayOf } from "../../src/billing/key-spend.ts";

const DAY_MS = 86_400_000;
const NOW = Date.UTC(2026, 10, 27, 23, 59, 59, 999);
const TODAY = utcDayOf(NOW);

const spend = (fields: Partial<KeySpend>): KeySpend => ({ limit: null, total: 0, today: 0, day: TODAY, ...fields });

describe("utcDayOf", () => {
  it("changes day at UTC midnight", () => {
    assert.equal(utcDayOf(NOW + 1), TODAY + 1);
    assert.equal(utcDayOf(NOW + 1 - DAY_MS), TODAY);
    assert.equal(utcDayOf(0), 0);
  });
});

describe("allowanceOf", () => {
  it("is null for a key without a limit", () => {
    assert.equal(allowanceOf(spend({ total: 500 }), NOW), null);
  });

  it("leaves a total limit less what the key ever spent", () => {
    const limit = { credits: 100, per: "total" } as const;
    assert.deepEqual(allowanceOf(spend({ limit, total: 70, today: 5 }), NOW), { ...limit, remaining: 30 });
  });

  it("leaves a day limit less what the key spent today, and all of it on a new day", () => {
    const limit = { credits: 20, per: "day" } as const;
    assert.deepEqual(allowanceOf(spend({ limit, total: 70, today: 15 }), NOW), { ...limit, remaining: 5 });
    assert.deepEqual(allowanceOf(spend({ limit, total: 70, today: 15 }), NOW + 1), { ...limit, remaining: 20 });
  });

  it("never leaves less than nothing", () => {
    const limit = { credits: 10, per: "total" } as const;
    assert.equal(allowanceOf(spend({ limit, total: 12 }), NOW)?.remaining, 0);
  });
});

describe("charged", () => {
  it("adds the credits to the total and to today's spend", () => {
    assert.deepEqual(charged(spend({ total: 7, today: 3 }), 5, NOW), spend({ total: 12, today: 8 }));
  });

  it("starts today's spend over on a new day", () => {
    assert.deepEqual(
      charged(spend({ total: 7, today: 3 }), 5, NOW + 1),
      spend({ total: 12, today: 5, day: TODAY + 1 }),
    );
  });

  it("starts a key's first day", () => {
    assert.deepEqual(charged(spend({ day: null }), 4, NOW), spend({ total: 4, today: 4 }));
  });
});

describe("refunded", () => {
  it("takes a charge of the same day off the total and today's spend", () => {
    assert.deepEqual(refunded(spend({ total: 12, today: 8 }), 5, NOW), spend({ total: 7, today: 3 }));
  });

  it("takes a charge of an earlier day off the total only", () => {
    assert.deepEqual(refunded(spend({ total: 12, today: 8 }), 5, NOW - DAY_MS), spend({ total: 7, today: 8 }));
  });

  it("never takes the spend below nothing", () => {
    assert.deepEqual(refunded(spend({ total: 2, today: 1 }), 5, NOW), spend({ total: 0, today: 0 }));
  });
});
