// Building a world: everything the generator emits arrives, the search index agrees with its content,
// and a build is all or nothing, invisible to other connections until it commits.

import type { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_CLOCK, type WorldOptions } from "@social/fixtures";
import { openDatabase } from "../src/database.ts";
import { buildWorld, hasWorld, readWorldMeta } from "../src/world/build.ts";
import { readFollowPosition, writeFollowPosition } from "../src/world/follow-position.ts";
import { collectWorld } from "./world-helpers.ts";

/** A test builds up to three small worlds: seconds on a busy machine. */
const BUILD_TIMEOUT = 30_000;
const SMALL: WorldOptions = { seed: "small-a", tweets: 1000, clock: DEFAULT_CLOCK };
const OTHER: WorldOptions = { seed: "small-b", tweets: 1200, clock: DEFAULT_CLOCK };

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function tempDatabase(): { path: string; db: Database } {
  const dir = mkdtempSync(join(tmpdir(), "world-build-"));
  const path = join(dir, "social.db");
  const db = openDatabase(path);
  cleanups.push(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { path, db };
}

function tableCounts(db: Database): Record<string, number> {
  const count = (table: string) => (db.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  return {
    user: count("users"),
    follow: count("follows"),
    tweet: count("tweets"),
    list: count("lists"),
    list_member: count("list_members"),
    list_subscriber: count("list_subscribers"),
    community: count("communities"),
    community_member: count("community_members"),
    trend: count("trends"),
    article: count("articles"),
  };
}

function checkSearchIndexes(db: Database): void {
  // Compares each FTS index with what its content table holds, token by token.
  db.run("INSERT INTO tweets_fts (tweets_fts) VALUES ('integrity-check')");
  db.run("INSERT INTO communities_fts (communities_fts) VALUES ('integrity-check')");
}

describe("buildWorld", () => {
  test(
    "stores every record the generator emits and records the world's meta",
    () => {
      const { db } = tempDatabase();
      expect(hasWorld(db)).toBe(false);
      const meta = buildWorld(db, SMALL);
      const truth = collectWorld(SMALL);
      const expected = Object.fromEntries(
        Object.entries(truth.records).map(([kind, records]) => [kind, records.length]),
      );
      expect(meta).toEqual({ seed: "small-a", clock: DEFAULT_CLOCK, counts: expected as never });
      expect(readWorldMeta(db)).toEqual(meta);
      expect(tableCounts(db)).toEqual(expected);
      expect(hasWorld(db)).toBe(true);
      expect(db.query("SELECT count(*) AS n FROM community_tweets").get()).toEqual({ n: truth.communityOf.size });
      // Generated ids follow time, which lets search turn dates into id bounds.
      expect(db.query("SELECT ids_follow_time FROM world_meta").get()).toEqual({ ids_follow_time: 1 });
      checkSearchIndexes(db);
    },
    BUILD_TIMEOUT,
  );

  test(
    "a rebuild replaces the whole world, search index included, and forgets followed files' positions",
    () => {
      const { db } = tempDatabase();
      buildWorld(db, SMALL);
      writeFollowPosition(db, { path: "/var/feed.jsonl", device: "1", inode: "2", offset: 300, line: 3 });
      const meta = buildWorld(db, OTHER);
      expect(readFollowPosition(db, "/var/feed.jsonl")).toBeUndefined();
      expect(meta.seed).toBe("small-b");
      expect(tableCounts(db)).toEqual(meta.counts);
      checkSearchIndexes(db);
      const indexes = db
        .query("SELECT count(*) AS n FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL")
        .get();
      const fresh = tempDatabase().db;
      expect(indexes).toEqual(
        fresh.query("SELECT count(*) AS n FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL").get(),
      );
    },
    BUILD_TIMEOUT,
  );

  test(
    "other connections see the old world until the new one is complete",
    () => {
      const { path, db } = tempDatabase();
      buildWorld(db, SMALL);
      const reader = openDatabase(path);
      cleanups.push(() => reader.close());
      const seen: (string | undefined)[] = [];
      buildWorld(db, OTHER, (progress) => {
        if (progress.tweets > 0 && seen.length < 3) seen.push(readWorldMeta(reader)?.seed);
      });
      expect(seen).toEqual(["small-a", "small-a", "small-a"]);
      expect(readWorldMeta(reader)?.seed).toBe("small-b");
    },
    BUILD_TIMEOUT,
  );

  test(
    "a build that fails leaves the previous world as it was",
    () => {
      const { db } = tempDatabase();
      const before = buildWorld(db, SMALL);
      expect(() =>
        buildWorld(db, OTHER, (progress) => {
          if (progress.tweets > 500) throw new Error("interrupted");
        }),
      ).toThrow("interrupted");
      expect(readWorldMeta(db)).toEqual(before);
      expect(tableCounts(db)).toEqual(before.counts);
      checkSearchIndexes(db);
    },
    BUILD_TIMEOUT,
  );

  test(
    "a first build that fails leaves no world",
    () => {
      const { db } = tempDatabase();
      expect(() =>
        buildWorld(db, SMALL, () => {
          throw new Error("interrupted");
        }),
      ).toThrow("interrupted");
      expect(hasWorld(db)).toBe(false);
      expect(tableCounts(db).user).toBe(0);
    },
    BUILD_TIMEOUT,
  );

  test(
    "restores the connection's page cache size",
    () => {
      const { db } = tempDatabase();
      db.run("PRAGMA cache_size = -4321");
      buildWorld(db, SMALL);
      expect(db.query("PRAGMA cache_size").get()).toEqual({ cache_size: -4321 });
    },
    BUILD_TIMEOUT,
  );
});
