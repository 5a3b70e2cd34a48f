// The largest id accepted (#33): below the largest int64, so that the bound one past it is an int64 too.
// What an import refuses at the edge (an id past it, a time in the future), and what since_id / until_id
// past it mean, on every surface (they share these functions).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  FUTURE_TOLERANCE_MS,
  ID_CEILING,
  importedTweet,
  importedUser,
  MAX_ID,
  parseQuery,
  Refusal,
  readRangeOf,
  removableId,
} from "../src/index.ts";

const INT64_MAX = 2n ** 63n - 1n;
const author = { id: "12", username: "ada" };

function refusalOf(make: () => unknown): string {
  try {
    make();
  } catch (error) {
    if (error instanceof Refusal) return error.reason;
    throw error;
  }
  assert.fail("accepted");
}

describe("the largest id accepted", () => {
  it("leaves room above it: the ceiling one past it is still an int64", () => {
    assert.equal(MAX_ID, INT64_MAX - 1n);
    assert.equal(ID_CEILING, INT64_MAX);
  });

  it("since_id and until_id past it become bounds a store can add one to and bind", () => {
    for (const huge of [String(INT64_MAX), "9999999999999999999"]) {
      const range = readRangeOf({ since_id: huge, until_id: huge });
      assert.deepEqual(range, { sinceId: String(MAX_ID), untilId: String(ID_CEILING) });
      assert.ok(BigInt(range?.sinceId ?? "0") + 1n <= INT64_MAX);
      assert.deepEqual(parseQuery(`a since_id:${huge} until_id:${huge}`), {
        kind: "and",
        children: [
          { kind: "term", value: "a" },
          { kind: "since_id", id: String(MAX_ID) },
          { kind: "until_id", id: String(ID_CEILING) },
        ],
      });
    }
    assert.deepEqual(readRangeOf({ since_id: String(MAX_ID), until_id: "007" }), {
      sinceId: String(MAX_ID),
      untilId: "7",
    });
  });

  it("an import takes a post and an account at it, and refuses one past it with the reason", () => {
    const created_at = "2026-11-24T13:00:00.000Z";
    assert.equal(importedUser({ ...author, id: String(MAX_ID), created_at }).user.id, String(MAX_ID));
    const tweet = { id: String(MAX_ID), text: "edge", author_id: String(MAX_ID), created_at };
    assert.equal(importedTweet(tweet).tweet.id, String(MAX_ID));
    const above = `is above the largest id accepted (${MAX_ID})`;
    assert.equal(
      refusalOf(() => importedTweet({ ...tweet, id: String(INT64_MAX) })),
      `a tweet id "${INT64_MAX}" ${above}`,
    );
    assert.equal(
      refusalOf(() => importedTweet({ ...tweet, author_id: String(INT64_MAX) })),
      `tweet ${MAX_ID}'s author_id "${INT64_MAX}" ${above}`,
    );
    assert.equal(
      refusalOf(() => importedUser({ ...author, id: String(INT64_MAX) })),
      `a user id "${INT64_MAX}" ${above}`,
    );
    assert.match(
      refusalOf(() => importedTweet({ ...tweet, id: "12a" })),
      /is not digits/,
    );
  });

  it("a removal can name one past it, which a world imported before ids were bounded may hold", () => {
    assert.equal(removableId(String(INT64_MAX)), String(INT64_MAX));
    assert.equal(removableId("0042"), "42");
    assert.equal(removableId("9223372036854775808"), undefined);
    assert.equal(removableId("12a"), undefined);
  });
});

describe("a time in the future", () => {
  const soon = () => new Date(Date.now() + FUTURE_TOLERANCE_MS / 2).toISOString();

  it("refuses a post created past the tolerance, given or told by its id, and takes one within it", () => {
    const tweet = { id: "1860000000000000000", text: "later", author_id: "12" };
    assert.equal(
      refusalOf(() => importedTweet({ ...tweet, created_at: "2080-07-10T17:30:30Z" })),
      "tweet 1860000000000000000 was created in the future: 2080-07-10T17:30:30.000Z (its created_at)",
    );
    // X's snowflake ids hold their time: this one's is in 2080.
    assert.equal(
      refusalOf(() => importedTweet({ ...tweet, id: String(MAX_ID) })),
      `tweet ${MAX_ID} was created in the future: 2080-07-10T17:30:30.208Z (the time its id tells, as it has no created_at)`,
    );
    const within = soon();
    assert.equal(importedTweet({ ...tweet, created_at: within }).tweet.created_at, within);
  });

  it("refuses an account created in the future alike", () => {
    assert.match(
      refusalOf(() => importedUser({ ...author, created_at: "2080-01-01T00:00:00Z" })),
      /^user 12 was created in the future: 2080-01-01T00:00:00.000Z \(its created_at\)$/,
    );
    assert.equal(importedUser({ ...author, created_at: soon() }).user.username, "ada");
  });
});
