// What bounds a search's work: its database-time budget, the number of matches relevancy ranks, and the
// lane that lets one step of one search run per event-loop turn, taking owners in turn.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { bucketCount, countWindow, matches, parseQuery } from "@social/core";
import { examples } from "@social/fixtures";
import { FairLane } from "../src/search/lane.ts";
import { SqliteStore } from "../src/store/sqlite-store.ts";
import { type BuiltWorld, buildDefaultWorld, byIdDesc, isVisible, searchDocumentIn, walk } from "./world-helpers.ts";

let world: BuiltWorld;
beforeAll(() => {
  world = buildDefaultWorld();
}, 60_000);
afterAll(() => world.db.close());

const truthOf = (text: string) =>
  world.truth.tweets
    .filter((tweet) => isVisible(world.truth, tweet) && matches(parseQuery(text), searchDocumentIn(world.truth, tweet)))
    .sort(byIdDesc);

describe("the search budget", () => {
  // No budget beyond the first step: whatever the first window does not answer is over budget.
  const firstStepOnly = () => new SqliteStore(world.db, { search: { budgetMs: 0, firstWindow: 64 } });

  test("a search no index serves is refused with a 400 that says how to narrow it", async () => {
    const refused = firstStepOnly().searchTweets(parseQuery("-the min_faves:999999999"), "recency", { size: 20 });
    await expect(refused).rejects.toMatchObject({
      code: "invalid_request",
      status: 400,
      details: [{ parameter: "query" }],
      message: expect.stringMatching(/without filling its page: narrow it with .*from:.*since:\/until:/),
    });
  });

  test("a relevancy search whose candidates take more than the budget to count is refused too", async () => {
    const refused = firstStepOnly().searchTweets(parseQuery("the -the"), "relevancy", { size: 20 });
    await expect(refused).rejects.toMatchObject({ code: "invalid_request", details: [{ parameter: "query" }] });
  });

  test("a count over more tweets than the budget covers is refused with a 400 that says how to narrow it", async () => {
    // A count's own budget, not a search's, bounds it.
    const countFirstStepOnly = new SqliteStore(world.db, { search: { countBudgetMs: 0, firstWindow: 64 } });
    const window = countWindow("day", (await countFirstStepOnly.clockMs()) as number);
    const refused = countFirstStepOnly.countTweets(parseQuery("-the min_faves:999999999"), window);
    await expect(refused).rejects.toMatchObject({
      code: "invalid_request",
      details: [{ parameter: "query" }],
      message: expect.stringMatching(/^This count examined .*\(0 ms .* a shorter range with start_time and end_time$/),
    });
    const roomy = new SqliteStore(world.db, { search: { budgetMs: 60_000, stepMs: 0.2, firstWindow: 16 } });
    const counts = await roomy.countTweets(parseQuery("-the min_faves:999999999"), window);
    expect(counts).toHaveLength(bucketCount(window));
  });

  test("a search that fills its page within the budget is answered whole, page after page", async () => {
    const store = new SqliteStore(world.db, { search: { budgetMs: 0, firstWindow: 1_000_000 } });
    const { items } = await walk((page) => store.searchTweets(parseQuery(examples.search_query), "recency", page), 20);
    expect(items).toStrictEqual(truthOf(examples.search_query));
  });

  test("a scan in many short steps finds every match, page after page", async () => {
    const store = new SqliteStore(world.db, { search: { budgetMs: 60_000, stepMs: 0.2, firstWindow: 16 } });
    const { items } = await walk(
      (page) => store.searchTweets(parseQuery("-the min_faves:999999999"), "recency", page),
      20,
    );
    expect(items).toStrictEqual(truthOf("-the min_faves:999999999"));
  });
});

describe("relevancy", () => {
  test("ranks the newest matches of its text, as many as relevancyCandidates", async () => {
    const store = new SqliteStore(world.db, { search: { relevancyCandidates: 25 } });
    const { items } = await walk(
      (page) => store.searchTweets(parseQuery(examples.search_query), "relevancy", page),
      10,
    );
    const newest = truthOf(examples.search_query).slice(0, 25);
    expect(newest.length).toBe(25);
    expect([...items].sort(byIdDesc)).toStrictEqual(newest);
  });
});

describe("FairLane", () => {
  /** A step of `ms` milliseconds of work, in `owner`'s turn, recorded in `order` when it runs. */
  const stepOf =
    (lane: FairLane, order: string[]) =>
    (owner: string, n: number, ms = 0) =>
      lane.turn(owner).then(() => {
        const until = performance.now() + ms;
        while (performance.now() < until) {}
        order.push(`${owner}${n}`);
        lane.stepped();
      });

  test("admits steps with owners taking turns", async () => {
    const lane = new FairLane(10, 2);
    const order: string[] = [];
    const step = stepOf(lane, order);
    await Promise.all([step("a", 1), step("a", 2), step("a", 3), step("b", 1), step("c", 1), step("b", 2)]);
    expect(order).toEqual(["a1", "b1", "c1", "a2", "b2", "a3"]);
    expect(lane.idle).toBe(true);
  });

  test("tells a step past its capacity to retry: 503 with Retry-After", async () => {
    const lane = new FairLane(2, 2);
    const step = stepOf(lane, []);
    const admitted = [step("a", 1), step("b", 1)];
    await expect(lane.turn("c")).rejects.toMatchObject({ code: "service_unavailable", retryAfter: 1 });
    await Promise.all(admitted);
  });

  test("runs the steps waiting in one turn of the loop while its slice lasts", async () => {
    const lane = new FairLane(10, 10_000);
    const order: string[] = [];
    const step = stepOf(lane, order);
    const steps = [1, 2, 3, 4].map((n) => step("a", n));
    const other = new Promise<void>((resolve) => setImmediate(() => resolve(void order.push("other"))));
    await Promise.all([...steps, other]);
    expect(order).toEqual(["a1", "a2", "a3", "a4", "other"]);
  });

  test("lets other work run between two slices", async () => {
    const lane = new FairLane(10, 0);
    const order: string[] = [];
    const step = stepOf(lane, order);
    const steps = [1, 2, 3].map((n) => step("a", n));
    setImmediate(() => order.push("other"));
    await Promise.all(steps);
    expect(order.indexOf("other")).toBeLessThan(order.indexOf("a3"));
  });
});
