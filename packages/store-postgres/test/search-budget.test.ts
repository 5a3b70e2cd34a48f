// A PostgreSQL search that cannot fill its page within its budget is the 400 that says how to narrow
// it, as on SQLite, whether the budget runs out inside a statement (statement_timeout) or between two;
// nothing is charged for a 400. Only the statements' own time counts: not the event loop's between them.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ApiError, bucketCount, countWindow, parseQuery } from "@social/core";
import { DEFAULT_WORLD } from "@social/fixtures";
import type { SQL } from "bun";
import { openPostgres } from "../src/database.ts";
import { PostgresStore } from "../src/store/postgres-store.ts";
import { buildWorld } from "../src/world/build.ts";
import { type PostgresServer, startPostgres } from "../testing/pg-server.ts";

let server: PostgresServer;
let sql: SQL;
beforeAll(async () => {
  server = await startPostgres();
  sql = await openPostgres(await server.createDatabase("budget"));
  await buildWorld(sql, DEFAULT_WORLD);
}, 60_000);
afterAll(async () => {
  await sql?.close();
  server?.stop();
});

async function refusal(store: PostgresStore, query: string): Promise<unknown> {
  return store.searchTweets(parseQuery(query), "recency", { size: 20 }).then(
    () => "answered",
    (error: unknown) => error,
  );
}

test("a walk of the whole world in 1 ms of budget is refused", async () => {
  // Nothing matches: the walk crosses all 20,000 tweets, which takes longer than 1 ms.
  const store = new PostgresStore(sql, { search: { budgetMs: 1 }, newestWalk: 20_000 });
  const error = await refusal(store, "coffee -coffee");
  expect(error).toBeInstanceOf(ApiError);
  expect(error).toMatchObject({ code: "invalid_request", status: 400 });
  expect((error as ApiError).message).toContain("narrow it");
});

test("a budget spent before the next statement is refused without running it", async () => {
  const store = new PostgresStore(sql, { search: { budgetMs: 0 } });
  expect(await refusal(store, "coffee")).toMatchObject({ code: "invalid_request", status: 400 });
});

test("a count past its budget is refused with the count's own advice", async () => {
  const store = new PostgresStore(sql, { search: { countBudgetMs: 0 } });
  const window = countWindow("day", (await store.clockMs()) as number);
  const error = await store.countTweets(parseQuery("coffee"), window).catch((refused: unknown) => refused);
  expect(error).toMatchObject({ code: "invalid_request", status: 400 });
  expect((error as ApiError).message).toContain("count a shorter range with start_time and end_time");
  expect(await new PostgresStore(sql).countTweets(parseQuery("coffee"), window)).toHaveLength(bucketCount(window));
});

test("the same searches with the default budget answer", async () => {
  const store = new PostgresStore(sql);
  expect(await refusal(store, "coffee -coffee")).toBe("answered");
  expect(await refusal(store, "coffee")).toBe("answered");
});

/** Keeps the event loop busy `ms` at a time, as other requests do under load, until the returned stop. */
function busyEventLoop(ms: number): () => void {
  let busy = true;
  const spin = () => {
    if (!busy) return;
    const until = performance.now() + ms;
    while (performance.now() < until) {}
    setImmediate(spin);
  };
  setImmediate(spin);
  return () => {
    busy = false;
  };
}

test("an event loop busy between a search's statements does not spend the search's budget", async () => {
  // A short walk, so that the page takes several steps, each a round trip that waits for the loop.
  const store = new PostgresStore(sql, { newestWalk: 100 });
  const expected = await store.searchTweets(parseQuery("coffee"), "recency", { size: 20 });
  const stop = busyEventLoop(150);
  try {
    expect(await store.searchTweets(parseQuery("coffee"), "recency", { size: 20 })).toEqual(expected);
  } finally {
    stop();
  }
});
