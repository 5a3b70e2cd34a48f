// core's answeringOutages: what an adapter's composition hands out instead of its port objects.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiError } from "../src/errors.ts";
import { answeringOutages } from "../src/outage.ts";

class Outage extends Error {}

const isOutage = (error: unknown) => error instanceof Outage;

/** A port whose methods reach its own private state, as every adapter's classes do. */
class Counter {
  readonly #counts = new Map<string, number>();
  #down = false;

  goDown(): void {
    this.#down = true;
  }

  count(name: string): number {
    if (this.#down) throw new Outage("lost the database");
    const next = (this.#counts.get(name) ?? 0) + 1;
    this.#counts.set(name, next);
    return next;
  }

  async total(): Promise<number> {
    if (this.#down) throw new Outage("lost the database");
    return [...this.#counts.values()].reduce((sum, n) => sum + n, 0);
  }

  async fail(error: Error): Promise<never> {
    throw error;
  }
}

class NamedCounter extends Counter {
  name(): string {
    return "named";
  }
}

/** Runs `work` with console.error silenced, giving back the lines it logged. */
async function quietly(work: () => Promise<void>): Promise<unknown[][]> {
  const original = console.error;
  const lines: unknown[][] = [];
  console.error = (...line: unknown[]) => void lines.push(line);
  try {
    await work();
  } finally {
    console.error = original;
  }
  return lines;
}

function assertUnavailable(error: unknown): true {
  assert.ok(error instanceof ApiError);
  assert.equal(error.code, "service_unavailable");
  assert.equal(error.status, 503);
  return true;
}

test("results pass unchanged: a synchronous method stays synchronous, on the port's own state", async () => {
  const counter = answeringOutages(new Counter(), isOutage);
  assert.equal(counter.count("a"), 1);
  const { count } = counter;
  assert.equal(count("a"), 2);
  assert.equal(await counter.total(), 2);
});

test("an outage, thrown or rejected, is service_unavailable, and the operator's log has its words", async () => {
  const raw = new Counter();
  const counter = answeringOutages(raw, isOutage);
  raw.goDown();
  const lines = await quietly(async () => {
    assert.throws(() => counter.count("a"), assertUnavailable);
    await assert.rejects(counter.total(), assertUnavailable);
  });
  assert.equal(lines.length, 2);
  assert.match(String(lines[0]?.[0]), /"kind":"service_unavailable".*lost the database/);
});

test("every other error passes unchanged", async () => {
  const counter = answeringOutages(new Counter(), isOutage);
  const bug = new TypeError("a bug");
  await assert.rejects(counter.fail(bug), (error) => error === bug);
  const refusal = new ApiError("invalid_request", "bad input");
  await assert.rejects(counter.fail(refusal), (error) => error === refusal);
});

test("inherited methods answer too; a member that is no method is refused", () => {
  const counter = answeringOutages(new NamedCounter(), isOutage);
  assert.deepEqual(Object.keys(counter).sort(), ["count", "fail", "goDown", "name", "total"]);
  assert.equal(counter.name(), "named");
  assert.throws(() => answeringOutages({ size: 1, read: () => 1 }, isOutage), /size is not a method/);
});
