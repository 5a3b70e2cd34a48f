// The demo's sharing and refresh, on the real store with a controlled clock.

import type { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Store } from "@social/core";
import { openDatabase, SqliteStore } from "@social/store-sqlite";
import { DEMO_REFRESH_MS, Demo } from "../src/demo.ts";
import { worldTemplate } from "./harness.ts";

let db: Database;
beforeAll(() => {
  db = openDatabase(worldTemplate());
});
afterAll(() => db.close());

/** The real store, counting the timeline reads the profile demo makes, and failing them on demand. */
class WatchedStore extends SqliteStore {
  reads = 0;
  failing = false;
  override timeline(...args: Parameters<Store["timeline"]>) {
    this.reads++;
    return this.failing ? Promise.reject(new Error("database gone")) : super.timeline(...args);
  }
}

describe("the demo", () => {
  it("computes once for concurrent visitors and again only after about a minute", async () => {
    let now = 1_000_000;
    const store = new WatchedStore(db);
    const demo = new Demo(store, () => now);
    const first = await Promise.all(Array.from({ length: 20 }, () => demo.data("profile")));
    expect(store.reads).toBe(1);
    expect(new Set(first).size).toBe(1);
    now += DEMO_REFRESH_MS - 1;
    await demo.data("profile");
    expect(store.reads).toBe(1);
    now += 1;
    await demo.data("profile");
    expect(store.reads).toBe(2);
  });

  it("keeps serving the last answer when a refresh fails", async () => {
    let now = 0;
    const store = new WatchedStore(db);
    const demo = new Demo(store, () => now);
    const before = await demo.data("profile");
    store.failing = true;
    now += DEMO_REFRESH_MS;
    expect(await demo.data("profile")).toBe(before);
    expect(store.reads).toBe(2);
  });
});
