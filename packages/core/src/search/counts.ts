// Counts of the tweets a query matches, per minute, hour or day, as X API v2's counts/recent gives them:
// so a customer can size a query before paying per item. The buckets are whole units of the granularity
// (a range is widened to the units it touches), newest last, over the last 7 days of the world's clock
// unless start_time and end_time say otherwise. A minute's buckets cover at most a day, so that one
// answer holds at most 1,440 of them.
import { invalidRequest } from "../errors.ts";

export const GRANULARITIES = ["minute", "hour", "day"] as const;
export type Granularity = (typeof GRANULARITIES)[number];

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

export const GRANULARITY_MS: Record<Granularity, number> = { minute: MINUTE_MS, hour: HOUR_MS, day: DAY_MS };
/** The longest range a request covers at each granularity, and the one it covers by default. */
export const COUNT_RANGE_MS: Record<Granularity, number> = { minute: DAY_MS, hour: 7 * DAY_MS, day: 7 * DAY_MS };

/** The buckets a count covers: `buckets` of `sizeMs` each, the first starting at `startMs`. */
export interface CountWindow {
  startMs: number;
  sizeMs: number;
  buckets: number;
}

/** The most buckets a request at `granularity` can have: its longest range, widened by one partial unit. */
export function mostBuckets(granularity: Granularity): number {
  return COUNT_RANGE_MS[granularity] / GRANULARITY_MS[granularity] + 1;
}

/**
 * The window of a request: from start_time (by default the range's length before the end) to end_time
 * (by default the world's clock), widened to whole units. A range longer than the granularity allows is
 * refused, naming the bound.
 */
export function countWindow(granularity: Granularity, clockMs: number, startMs?: number, endMs?: number): CountWindow {
  const sizeMs = GRANULARITY_MS[granularity];
  const end = endMs ?? (startMs === undefined ? clockMs : Math.min(clockMs, startMs + COUNT_RANGE_MS[granularity]));
  const start = startMs ?? end - COUNT_RANGE_MS[granularity];
  if (end - start > COUNT_RANGE_MS[granularity]) {
    const days = COUNT_RANGE_MS[granularity] / DAY_MS;
    const message = `must be at most ${days === 1 ? "1 day" : `${days} days`} after start_time at granularity=${granularity}`;
    throw invalidRequest(`Invalid request: end_time ${message}`, [{ parameter: "end_time", message }]);
  }
  const first = Math.floor(start / sizeMs) * sizeMs;
  const last = Math.ceil(end / sizeMs) * sizeMs;
  return { startMs: first, sizeMs, buckets: Math.max(1, (last - first) / sizeMs) };
}
