// What an import or a removal leaves settled in world_meta once its rows are written (@social/store-common
// imported-world.ts says what each part is): the counts, the clock, whether ids follow time, and for a
// world that was not generated its trends and showcase. Measuring reads the whole world, so an import
// measures in a read transaction of its own, which takes no lock a writer waits for, and holds the
// write lock only to store what it measured; a removal settles inside its own transaction.
import type { Database } from "bun:sqlite";
import type { ImportedWorld, RemovedRows } from "@social/core";
import {
  type HashtagCount,
  IMPORTED_SEED,
  importedShowcase,
  importedTrends,
  MAX_IMPORTED_TRENDS,
  settledCounts,
  TRENDS_WINDOW_MS,
  WORLDWIDE_WOEID,
  type WorldCounts,
} from "@social/store-common";

/** What a world's rows say of it now, ready to be stored in world_meta. */
interface Measured {
  /** Whether world_meta has its row yet. */
  stored: boolean;
  imported: boolean;
  users: number;
  tweets: number;
  clockMs: number;
  counts: WorldCounts;
  idsFollowTime: boolean;
  /** An imported world's hashtags of the day before its clock, and its most followed author. */
  shown?: { hashtags: HashtagCount[]; star: string | undefined };
}

/** Reads what the world holds now, after a removal that deleted `removed`. */
export function measureWorld(db: Database, removed?: RemovedRows): Measured {
  const meta = db
    .query<{ origin: string; clock_ms: number; counts: string }, []>(
      "SELECT origin, clock_ms, counts FROM world_meta WHERE id = 1",
    )
    .get();
  const imported = meta === null || meta.origin === "imported";
  const { users, tweets, newest } = db
    .query<{ users: number; tweets: number; newest: number | null }, []>(
      "SELECT (SELECT count(*) FROM users) AS users, (SELECT count(*) FROM tweets) AS tweets, (SELECT max(created_ms) FROM tweets) AS newest",
    )
    .get() ?? { users: 0, tweets: 0, newest: null };
  // A generated world's clock moves only forward, to its newest post; an imported world's is its newest.
  const clockMs = imported ? (newest ?? meta?.clock_ms ?? Date.now()) : Math.max(meta?.clock_ms ?? 0, newest ?? 0);
  const previous = meta === null ? undefined : (JSON.parse(meta.counts) as WorldCounts);
  const idsFollowTime =
    db
      .query<{ behind: number }, []>(
        `SELECT count(*) AS behind FROM (SELECT created_ms < lag(created_ms) OVER (ORDER BY id) AS behind FROM tweets)
         WHERE behind`,
      )
      .get()?.behind === 0;
  return {
    stored: meta !== null,
    imported,
    users,
    tweets,
    clockMs,
    counts: settledCounts(previous, users, tweets, removed),
    idsFollowTime,
    ...(imported ? { shown: shownOf(db, clockMs) } : {}),
  };
}

/** An imported world's trends and showcase, as its rows give them now. */
function shownOf(db: Database, clockMs: number): NonNullable<Measured["shown"]> {
  const hashtags = db
    .query<HashtagCount, [number, number]>(
      `SELECT max(json_extract(h.value, '$.tag')) AS tag, count(DISTINCT t.id) AS tweets
       FROM tweets t, json_each(t.extra, '$.entities.hashtags') h
       WHERE t.created_ms > ? AND t.author_protected = 0
       GROUP BY lower(json_extract(h.value, '$.tag')) ORDER BY tweets DESC, tag LIMIT ?`,
    )
    .all(clockMs - TRENDS_WINDOW_MS, MAX_IMPORTED_TRENDS);
  const star = db
    .query<{ username: string }, []>(
      `SELECT u.username FROM users u
       WHERE EXISTS (SELECT 1 FROM tweets t WHERE t.author_id = u.id AND t.author_protected = 0)
       ORDER BY json_extract(u.doc, '$.follower_count') DESC, u.id LIMIT 1`,
    )
    .get();
  return { hashtags, star: star?.username };
}

/** Stores what `measured` says in world_meta and, for an imported world, its trends and showcase. */
export function storeSettled(db: Database, measured: Measured): ImportedWorld {
  const { clockMs, counts, idsFollowTime } = measured;
  const clock = new Date(clockMs).toISOString();
  if (!measured.stored) {
    db.query(
      `INSERT INTO world_meta (id, seed, clock, clock_ms, counts, ids_follow_time, origin)
       VALUES (1, ?, ?, ?, ?, ?, 'imported')`,
    ).run(IMPORTED_SEED, clock, clockMs, JSON.stringify(counts), idsFollowTime ? 1 : 0);
  } else {
    db.query("UPDATE world_meta SET clock = ?, clock_ms = ?, counts = ?, ids_follow_time = ? WHERE id = 1").run(
      clock,
      clockMs,
      JSON.stringify(counts),
      idsFollowTime ? 1 : 0,
    );
  }
  if (measured.shown !== undefined) {
    const trends = importedTrends(measured.shown.hashtags);
    db.query("DELETE FROM trends").run();
    const insert = db.query("INSERT INTO trends (woeid, rank, name, query, tweet_count) VALUES (?, ?, ?, ?, ?)");
    for (const trend of trends) insert.run(trend.woeid, trend.rank, trend.name, trend.query, trend.tweet_count);
    db.query("UPDATE world_meta SET showcase = ? WHERE id = 1").run(importedShowcase(measured.shown.star, trends));
  }
  const trends = db
    .query<{ name: string }, [string]>("SELECT name FROM trends WHERE woeid = ? ORDER BY rank LIMIT 10")
    .all(WORLDWIDE_WOEID)
    .map(({ name }) => name);
  return { users: measured.users, tweets: measured.tweets, clock, trends };
}

/** Settles the world after a removal that deleted `removed`, in the caller's transaction. */
export function settleWorld(db: Database, removed?: RemovedRows): ImportedWorld {
  return storeSettled(db, measureWorld(db, removed));
}
