// What an import or a removal leaves settled in world_meta once its rows are written, in the caller's
// transaction (@social/store-common imported-world.ts says what each part is): the counts, the clock,
// whether ids follow time, and for a world that was not generated its trends and showcase.
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

/** Settles the world after an import, or after a removal that deleted `removed`. */
export function settleWorld(db: Database, removed?: RemovedRows): ImportedWorld {
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
  const counts = settledCounts(previous, users, tweets, removed);
  const idsFollowTime =
    db
      .query<{ behind: number }, []>(
        `SELECT count(*) AS behind FROM (SELECT created_ms < lag(created_ms) OVER (ORDER BY id) AS behind FROM tweets)
         WHERE behind`,
      )
      .get()?.behind === 0;
  const clock = new Date(clockMs).toISOString();
  if (meta === null) {
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
  if (imported) showTrends(db, clockMs);
  const trends = db
    .query<{ name: string }, [string]>("SELECT name FROM trends WHERE woeid = ? ORDER BY rank LIMIT 10")
    .all(WORLDWIDE_WOEID)
    .map(({ name }) => name);
  return { users, tweets, clock, trends };
}

/** An imported world's trends and showcase, from what it holds now. */
function showTrends(db: Database, clockMs: number): void {
  const hashtags = db
    .query<HashtagCount, [number, number]>(
      `SELECT max(json_extract(h.value, '$.tag')) AS tag, count(DISTINCT t.id) AS tweets
       FROM tweets t, json_each(t.extra, '$.entities.hashtags') h
       WHERE t.created_ms > ? AND t.author_protected = 0
       GROUP BY lower(json_extract(h.value, '$.tag')) ORDER BY tweets DESC, tag LIMIT ?`,
    )
    .all(clockMs - TRENDS_WINDOW_MS, MAX_IMPORTED_TRENDS);
  const trends = importedTrends(hashtags);
  db.query("DELETE FROM trends").run();
  const insert = db.query("INSERT INTO trends (woeid, rank, name, query, tweet_count) VALUES (?, ?, ?, ?, ?)");
  for (const trend of trends) insert.run(trend.woeid, trend.rank, trend.name, trend.query, trend.tweet_count);
  const star = db
    .query<{ username: string }, []>(
      `SELECT u.username FROM users u
       WHERE EXISTS (SELECT 1 FROM tweets t WHERE t.author_id = u.id AND t.author_protected = 0)
       ORDER BY json_extract(u.doc, '$.follower_count') DESC, u.id LIMIT 1`,
    )
    .get();
  db.query("UPDATE world_meta SET showcase = ? WHERE id = 1").run(importedShowcase(star?.username, trends));
}
