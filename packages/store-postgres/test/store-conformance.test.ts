// The Store conformance suite (@social/conformance) on PostgreSQL, on the default world built into a
// server of its own; then what PostgreSQL's keys add: a cursor key that no store issues is refused.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { storeConformance } from "@social/conformance";
import { examples } from "@social/fixtures";
import { acquireDefaultWorld, type DefaultWorld, releaseDefaultWorld } from "./default-world.ts";

// Held for the whole file, so that the suite's release does not take the world from the test after it.
let world: DefaultWorld;
beforeAll(async () => {
  world = await acquireDefaultWorld();
});
afterAll(releaseDefaultWorld);

storeConformance("PostgreSQL", async () => {
  const { store } = await acquireDefaultWorld();
  return { store, close: releaseDefaultWorld };
});

// No store issues a fraction or an unsafe integer for a key of whole numbers, and cursors are signed:
// PostgreSQL calls such a key foreign where SQLite would compare with it.
test("PostgreSQL: a cursor key that is a fraction or past 2^53 is an invalid page token", async () => {
  for (const after of [[1.5], [2 ** 53 + 2]]) {
    await expect(world.store.quotes(examples.quoted_tweet_id, { size: 5, after })).rejects.toMatchObject({
      code: "invalid_request",
    });
  }
});
