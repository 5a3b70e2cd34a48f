// Time a search spends waiting for the database is not the query's cost. Another session holding
// `LOCK tweets IN ACCESS EXCLUSIVE MODE` (what REINDEX, ALTER TABLE and VACUUM FULL take), or a pool whose
// connections are all taken: a search and a count that meet one answer as they would without it once
// it ends within the wait bound, or 503 service_unavailable with Retry-After past it, never the 400
// that blames the query.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ApiError, type CountWindow, countWindow, parseQuery } from "@social/core";
import { DEFAULT_WORLD } from "@social/fixtures";
import { SQL } from "bun";
import { openPostgres } from "../src/database.ts";
import { PostgresStore } from "../src/store/postgres-store.ts";
import { buildWorld } from "../src/world/build.ts";
import { holdLock, LOCKS, waitersOnLocks } from "../testing/locks.ts";
import { type PostgresServer, startPostgres } from "../testing/pg-server.ts";

/** Longer than a count's budget (500 ms), well within LONG_WAIT_MS. */
const HOLD_PAST_BUDGETS_MS = 700;
const LONG_WAIT_MS = 10_000;
/** The wait bound of the stores that must give up, and how long a lock outlasts it. */
const SHORT_WAIT_MS = 200;
const OUTLASTS_MS = 5_000;

let server: PostgresServer;
let url: string;
let sql: SQL;
let window: CountWindow;
beforeAll(async () => {
  server = await startPostgres();
  url = await server.createDatabase("locks");
  sql = await openPostgres(url);
  await buildWorld(sql, DEFAULT_WORLD);
  window = countWindow("day", (await new PostgresStore(sql).clockMs()) as number);
}, 60_000);
afterAll(async () => {
  await sql?.close();
  server?.stop();
});

/** A recency page, a relevancy page and a count of one word, each settled as its value or its error. */
function reads(store: PostgresStore): Promise<unknown>[] {
  const settled = (read: Promise<unknown>) => read.catch((error: unknown) => error);
  return [
    settled(store.searchTweets(parseQuery("coffee"), "recency", { size: 20 })),
    settled(store.searchTweets(parseQuery("coffee"), "relevancy", { size: 20 })),
    settled(store.countTweets(parseQuery("coffee"), window)),
  ];
}

/** "503" for service_unavailable with a Retry-After, the outcome itself otherwise. */
function described(outcome: unknown): unknown {
  const isUnavailable =
    outcome instanceof ApiError && outcome.code === "service_unavailable" && (outcome.retryAfter ?? 0) >= 1;
  return isUnavailable ? "503" : outcome;
}

/** The reads' outcomes while `held` lasts: it ends once they settle, or after OUTLASTS_MS if they do not. */
async function whileHeld(store: PostgresStore, release: () => Promise<void>): Promise<unknown[]> {
  const pending = reads(store);
  try {
    await Promise.race([Promise.all(pending), Bun.sleep(OUTLASTS_MS)]);
  } finally {
    await release();
  }
  return (await Promise.all(pending)).map(described);
}

describe("a lock on tweets held by another session", () => {
  test("released within the wait bound: the search and the count wait for it and answer as without it", async () => {
    const store = new PostgresStore(sql, { search: { waitMs: LONG_WAIT_MS } });
    const expected = await Promise.all(reads(store));
    expect(expected.filter((outcome) => outcome instanceof Error)).toEqual([]);
    const lock = await holdLock(url, LOCKS.table);
    let pending: Promise<unknown>[];
    try {
      pending = reads(store);
      await waitersOnLocks(sql, pending.length);
      // Both budgets would be spent by now if the wait counted against them.
      await Bun.sleep(HOLD_PAST_BUDGETS_MS);
    } finally {
      await lock.release();
    }
    expect(await Promise.all(pending)).toEqual(expected);
  }, 30_000);

  test("held past the wait bound: 503 service_unavailable with Retry-After while it is still held", async () => {
    const store = new PostgresStore(sql, { search: { waitMs: SHORT_WAIT_MS } });
    const lock = await holdLock(url, LOCKS.table);
    expect(await whileHeld(store, () => lock.release())).toEqual(["503", "503", "503"]);
    // Once it is gone, the same store answers.
    expect((await Promise.all(reads(store))).filter((outcome) => outcome instanceof Error)).toEqual([]);
  }, 30_000);
});

test("a REINDEX of the search index: waited for up front, with the table's locks, then 503 past the bound", async () => {
  // Only the index is locked against reads: a search that met the lock in a later statement would
  // spend its budget waiting there. One connection, which has run the first statement often enough for
  // PostgreSQL to keep a plan of it (and a kept plan locks only the indexes it reads).
  const one = new SQL(url, { max: 1 });
  try {
    const store = new PostgresStore(one, { search: { waitMs: SHORT_WAIT_MS } });
    for (let round = 0; round < 4; round++) await Promise.all(reads(store));
    const lock = await holdLock(url, LOCKS.searchIndex);
    expect(await whileHeld(store, () => lock.release())).toEqual(["503", "503", "503"]);
  } finally {
    await one.close();
  }
}, 30_000);

test("a pool whose connections are all taken past the wait bound: 503 with Retry-After", async () => {
  const small = new SQL(url, { max: 2 });
  try {
    const store = new PostgresStore(small, { search: { waitMs: SHORT_WAIT_MS } });
    // As in a server that has run a search: the statistics a search plans by are known.
    await Promise.all(reads(store));
    const taken = [await small.reserve(), await small.reserve()];
    const outcomes = await whileHeld(store, async () => {
      for (const connection of taken) await connection.release();
    });
    expect(outcomes).toEqual(["503", "503", "503"]);
  } finally {
    await small.close();
  }
}, 30_000);
