// The gate in front of PostgreSQL searches: a few run at once, owners take turns for the rest, and a
// full queue is a 503 with Retry-After, never a wait without end.
import { describe, expect, test } from "bun:test";
import { ApiError } from "@social/core";
import { SearchGate } from "../src/search/gate.ts";

/** A search that runs until `finish()`. */
function held() {
  let finish = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return { done, finish: () => finish() };
}

describe("SearchGate", () => {
  test("runs at most maxRunning searches at once, and owners take turns for the others", async () => {
    const gate = new SearchGate(2, 10);
    const order: string[] = [];
    const searches = new Map<string, ReturnType<typeof held>>();
    const start = (owner: string, name: string) => {
      const search = held();
      searches.set(name, search);
      return gate.run(owner, async () => {
        order.push(name);
        await search.done;
      });
    };
    const all = [
      start("flood", "f1"),
      start("flood", "f2"),
      start("flood", "f3"),
      start("flood", "f4"),
      start("other", "o1"),
    ];
    await Bun.sleep(1);
    expect(order).toEqual(["f1", "f2"]);
    searches.get("f1")?.finish();
    await Bun.sleep(1);
    // f3 queued first, then o1: one turn each, whatever the flood queued.
    expect(order).toEqual(["f1", "f2", "f3"]);
    searches.get("f2")?.finish();
    await Bun.sleep(1);
    expect(order).toEqual(["f1", "f2", "f3", "o1"]);
    for (const name of ["f3", "o1"]) searches.get(name)?.finish();
    await Bun.sleep(1);
    searches.get("f4")?.finish();
    await Promise.all(all);
    expect(order).toEqual(["f1", "f2", "f3", "o1", "f4"]);
  });

  test("a search past the waiting room is refused with 503 and Retry-After, and the others still run", async () => {
    const gate = new SearchGate(1, 1);
    const first = held();
    const running = gate.run("a", () => first.done);
    const waiting = gate.run("b", async () => "ran");
    const refused = await gate.run("c", async () => "ran").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ code: "service_unavailable", retryAfter: 1 });
    first.finish();
    await running;
    expect(await waiting).toBe("ran");
    expect(await gate.run("c", async () => "ran")).toBe("ran");
  });
});
