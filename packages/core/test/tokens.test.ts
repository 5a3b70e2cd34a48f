import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { createTokenCodec } from "../src/tokens.ts";

const SECRET = "a-test-secret-that-is-long-enough-0123456789";
const codec = await createTokenCodec(SECRET);

async function isRefused(promise: Promise<unknown>): Promise<boolean> {
  try {
    await promise;
    return false;
  } catch (error) {
    return (error as { code?: string }).code === "invalid_request";
  }
}

const cursorArb = fc.array(
  fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })),
  {
    minLength: 1,
    maxLength: 4,
  },
);

describe("pagination tokens", () => {
  it("round-trips any cursor", async () => {
    await fc.assert(
      fc.asyncProperty(cursorArb, fc.string(), async (cursor, query) => {
        const token = await codec.sign("search_recent", query, cursor);
        assert.deepEqual(await codec.verify(token, "search_recent", query), JSON.parse(JSON.stringify(cursor)));
      }),
      { numRuns: 200 },
    );
  });

  it("rejects every single-character change", async () => {
    const token = await codec.sign("user_tweets", '[["id","42"]]', ["1234567890", 7]);
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ ";
    for (let i = 0; i < token.length; i++) {
      for (const replacement of alphabet) {
        if (replacement === token[i]) continue;
        const forged = token.slice(0, i) + replacement + token.slice(i + 1);
        assert.ok(
          await isRefused(codec.verify(forged, "user_tweets", '[["id","42"]]')),
          `change at ${i} to ${replacement}`,
        );
      }
    }
  });

  it("rejects truncation, extension and tokens of other endpoints, queries or secrets", async () => {
    const token = await codec.sign("user_tweets", "q", ["1"]);
    for (let cut = 0; cut < token.length; cut++)
      assert.ok(await isRefused(codec.verify(token.slice(0, cut), "user_tweets", "q")));
    assert.ok(await isRefused(codec.verify(`${token}A`, "user_tweets", "q")));
    assert.ok(await isRefused(codec.verify(token, "user_media", "q")));
    assert.ok(await isRefused(codec.verify(token, "user_tweets", "other")));
    const other = await createTokenCodec(`${SECRET}-rotated`);
    assert.ok(await isRefused(other.verify(token, "user_tweets", "q")));
  });

  it("says when a genuine token comes back with other arguments, and only then", async () => {
    const token = await codec.sign("user_tweets", "q", ["1"]);
    const messageOf = (promise: Promise<unknown>) =>
      promise.then(
        () => "accepted",
        (error: Error) => error.message,
      );
    assert.match(
      await messageOf(codec.verify(token, "user_tweets", "other")),
      /was returned for a request with other arguments/,
    );
    // Another endpoint's, another secret's or a broken token is only invalid.
    const other = await createTokenCodec(`${SECRET}-rotated`);
    const broken = token.replace(/\.([^.])/, ".A$1");
    assert.match(await messageOf(codec.verify(token, "user_media", "other")), /next_token is invalid/);
    assert.match(await messageOf(other.verify(token, "user_tweets", "other")), /next_token is invalid/);
    assert.match(await messageOf(codec.verify(broken, "user_tweets", "other")), /next_token is invalid/);
  });

  it("refuses arbitrary strings with invalid_request only", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 600 }), async (text) => {
        assert.ok(await isRefused(codec.verify(text, "search_recent", "q")));
      }),
      { numRuns: 300 },
    );
  });

  it("refuses a short secret", async () => {
    await assert.rejects(createTokenCodec("short"));
  });
});
