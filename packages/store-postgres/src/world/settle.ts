// What an import or a removal leaves settled in world_meta once its rows are written, in the caller's
// transaction (@social/store-common imported-world.ts says what each part is): the counts, the clock,
// whether ids follow time, and for a world that was not generated its trends and showcase. Writers of
// the world take WORLD_WRITE_LOCK first, so two never decide on the same stored rows at once.
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
import type { TransactionSQL } from "bun";

/** The key of the advisory lock every import batch and removal holds for its transaction. */
export const WORLD_WRITE_LOCK = 0x5eed_1a9e;

/** Settles the world after an import, or after a removal that deleted `removed`. */
export async function settleWorld(tx: TransactionSQL, removed?: RemovedRows): Promise<ImportedWorld> {
  const [meta] = await tx<{ origin: string; clock_ms: string; counts: string }[]>`
    SELECT origin, clock_ms, counts FROM world_meta WHERE id = 1`;
  const imported = meta === undefined || meta.origin === "imported";
  const [totals] = await tx<{ users: string; tweets: string; newest: string | null; behind: string }[]>`
    SELECT (SELECT count(*) FROM users) AS users, (SELECT count(*) FROM tweets) AS tweets,
           (SELECT max(created_ms) FROM tweets) AS newest,
           (SELECT count(*) FROM (SELECT created_ms < lag(created_ms) OVER (ORDER BY id) AS behind FROM tweets) b
            WHERE behind) AS behind`;
  const users = Number(totals?.users ?? 0);
  const tweets = Number(totals?.tweets ?? 0);
  const newest = totals?.newest == null ? undefined : Number(totals.newest);
  const storedClock = meta === undefined ? undefined : Number(meta.clock_ms);
  // A generated world's clock moves only forward, to its newest post; an imported world's is its newest.
  const clockMs = imported ? (newest ?? storedClock ?? Date.now()) : Math.max(storedClock ?? 0, newest ?? 0);
  const clock = new Date(clockMs).toISOString();
  const previous = meta === undefined ? undefined : (JSON.parse(meta.counts) as WorldCounts);
  const counts = JSON.stringify(settledCounts(previous, users, tweets, removed));
  const idsFollowTime = Number(totals?.behind ?? 0) === 0;
  await tx`
    INSERT INTO world_meta (id, seed, clock, clock_ms, counts, ids_follow_time, origin)
    VALUES (1, ${IMPORTED_SEED}, ${clock}, ${clockMs}, ${counts}, ${idsFollowTime}, 'imported')
    ON CONFLICT (id) DO UPDATE SET clock = excluded.clock, clock_ms = excluded.clock_ms,
      counts = excluded.counts, ids_follow_time = excluded.ids_follow_time`;
  if (imported) await showTrends(tx, clockMs);
  await analyzeChanged(tx);
  const trends = await tx<{ name: string }[]>`
    SELECT name FROM trends WHERE woeid = ${WORLDWIDE_WOEID} ORDER BY rank LIMIT 10`;
  return { users, tweets, clock, trends: trends.map(({ name }) => name) };
}

/** A table's rows changed since its statistics were taken, past this share, have them taken anew. */
const STALE_STATISTICS_SHARE = 0.1;

/**
 * The planner's statistics of the tables imports write, as a build leaves them: taken anew for a table
 * never analyzed or changed past STALE_STATISTICS_SHARE since, so that a followed import settling every
 * few seconds does not sample the whole table each time (nor keep cancelling autovacuum's own).
 */
async function analyzeChanged(tx: TransactionSQL): Promise<void> {
  const stale = await tx<{ name: string }[]>`
    SELECT relname AS name FROM pg_stat_user_tables
    WHERE schemaname = current_schema() AND relname IN ('users', 'tweets')
      AND (coalesce(last_analyze, last_autoanalyze) IS NULL
           OR n_mod_since_analyze > ${STALE_STATISTICS_SHARE} * greatest(n_live_tup, 1))`;
  if (stale.length > 0) await tx.unsafe(`ANALYZE ${stale.map(({ name }) => name).join(", ")}`);
}

/** An imported world's trends (its hashtags of the last day) and showcase, from what it holds now. */
async function showTrends(tx: TransactionSQL, clockMs: number): Promise<void> {
  const hashtags = await tx<HashtagCount[]>`
    SELECT max(h.value ->> 'tag') AS tag, count(DISTINCT t.id)::int AS tweets
    FROM tweets t, json_array_elements(t.extra::json -> 'entities' -> 'hashtags') h
    WHERE t.created_ms > ${clockMs - TRENDS_WINDOW_MS} AND NOT t.author_protected
    GROUP BY lower(h.value ->> 'tag') ORDER BY tweets DESC, tag LIMIT ${MAX_IMPORTED_TRENDS}`;
  const trends = importedTrends(hashtags);
  await tx`DELETE FROM trends`;
  if (trends.length > 0) await tx`INSERT INTO trends ${tx(trends)}`;
  const [star] = await tx<{ username: string }[]>`
    SELECT u.username FROM users u
    WHERE EXISTS (SELECT 1 FROM tweets t WHERE t.author_id = u.id AND NOT t.author_protected)
    ORDER BY (u.doc::json ->> 'follower_count')::bigint DESC, u.id LIMIT 1`;
  await tx`UPDATE world_meta SET showcase = ${importedShowcase(star?.username, trends)} WHERE id = 1`;
}
