// A search's first statement (./transaction.ts): the ids of the world that can hold its matches, and
// what the steps after it size themselves by.
import { ID_CEILING } from "@social/core";
import { higherId, type IdRange, lowerId, withinIds, worldIds } from "@social/store-common";
import type { SQL } from "bun";
import type { SearchPlan } from "./compile.ts";
import { hourOf } from "./hours.ts";

export interface WorldRange extends IdRange {
  idsPerTweet: number;
  tweets: number;
  /** When ids follow time: the hours of the range's newest and oldest tweets, and tweets per hour. */
  hours?: HourSpan;
}

export interface HourSpan {
  newest: number;
  oldest: number;
  tweetsPerHour: number;
  /** The hours of the world's first and last tweets, which the index lists when asked for no hours. */
  worldFirst: number;
  worldLast: number;
}

/**
 * The world's bounds, read per search (index seeks), not kept: the operator CLI can rebuild the world
 * under a running server. `below` and `above`: the ids under which the newest tweet opens the search's
 * hours, and over which the oldest closes them.
 */
function readRange(tx: SQL, since: number | null, until: number | null, below: bigint, above: bigint) {
  return tx<RangeRow[]>`SELECT (SELECT min(id) FROM tweets) AS low, (SELECT max(id) FROM tweets) AS high,
    coalesce((SELECT ids_follow_time FROM world_meta WHERE id = 1), false) AS ids_follow_time,
    (SELECT counts FROM world_meta WHERE id = 1) AS counts,
    (SELECT id FROM tweets WHERE created_ms >= ${since}::bigint ORDER BY created_ms, id LIMIT 1) AS since_id,
    (SELECT id FROM tweets WHERE created_ms >= ${until}::bigint ORDER BY created_ms, id LIMIT 1) AS until_id,
    (SELECT created_ms FROM tweets ORDER BY id LIMIT 1) AS first_ms,
    (SELECT created_ms FROM tweets ORDER BY id DESC LIMIT 1) AS last_ms,
    (SELECT created_ms FROM tweets WHERE id < ${below}::bigint ORDER BY id DESC LIMIT 1) AS top_ms,
    (SELECT created_ms FROM tweets WHERE id > ${above}::bigint ORDER BY id LIMIT 1) AS bottom_ms`;
}

interface RangeRow {
  low: string | null;
  high: string | null;
  ids_follow_time: boolean;
  counts: string | null;
  since_id: string | null;
  until_id: string | null;
  first_ms: string | null;
  last_ms: string | null;
  top_ms: string | null;
  bottom_ms: string | null;
}

/**
 * Ids [low, high) of the world that can hold the plan's matches (below `top` too, when given); the
 * world's tweets, ids per tweet and, when ids follow time, its hours.
 */
export async function worldRange(tx: SQL, plan: SearchPlan, top: bigint | undefined): Promise<WorldRange> {
  const below = lowerId(top ?? ID_CEILING, plan.untilId ?? ID_CEILING);
  const [row] = await readRange(tx, plan.since ?? null, plan.until ?? null, below, plan.sinceId ?? -1n);
  if (row === undefined || row.low === null || row.high === null) {
    return { low: 0n, high: 0n, idsPerTweet: 1, tweets: 0 };
  }
  const tweets = row.counts === null ? 0 : ((JSON.parse(row.counts) as { tweet?: number }).tweet ?? 0);
  const { low, high } = worldIds(row.low, row.high);
  const ids = withinIds({ low, high }, plan);
  const range: WorldRange = {
    ...ids,
    high: top === undefined ? ids.high : lowerId(ids.high, top),
    idsPerTweet: tweets < 2 ? 1 : Math.max(1, Number(high - 1n - low) / (tweets - 1)),
    tweets,
  };
  if (!row.ids_follow_time) return range;
  // No tweet from since: on leaves nothing to walk.
  if (plan.since !== undefined) range.low = higherId(range.low, row.since_id === null ? high : BigInt(row.since_id));
  if (plan.until !== undefined && row.until_id !== null) range.high = lowerId(range.high, BigInt(row.until_id));
  if (row.first_ms !== null && row.last_ms !== null && row.top_ms !== null) {
    const [first, last] = [hourOf(Number(row.first_ms)), hourOf(Number(row.last_ms))];
    range.hours = {
      newest: hourOf(Math.min(Number(row.top_ms), (plan.until ?? Number.POSITIVE_INFINITY) - 1)),
      // A since_id: ends the hours too: below it, a step would read every match of the world's
      // oldest hours to keep none.
      oldest: hourOf(Math.max(Number(row.bottom_ms ?? row.first_ms), plan.since ?? Number.NEGATIVE_INFINITY)),
      tweetsPerHour: Math.max(1, tweets) / (last - first + 1),
      worldFirst: first,
      worldLast: last,
    };
  }
  return range;
}
