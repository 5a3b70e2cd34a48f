// Counts of the tweets a query matches, per minute, hour or day, as X API v2's counts/recent gives them:
// so a customer can size a query before paying per item. A window runs from start_time (by default the
// range's length before the end) to end_time (by default just after the world's clock); its buckets are the whole
// units it touches, the first starting at the window's start and the last ending at its end, as X
// labels them (twarc2 checks that the first bucket starts at the start_time it sent). A minute's buckets
// cover at most a day, so that one answer holds at most 1,441 of them.
import { invalidRequest } from "../errors.ts";
import type { CountBucket } from "../model.ts";
import type { SearchNode } from "./ast.ts";

export const GRANULARITIES = ["minute", "hour", "day"] as const;
export type Granularity = (typeof GRANULARITIES)[number];

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

export const GRANULARITY_MS: Record<Granularity, number> = { minute: MINUTE_MS, hour: HOUR_MS, day: DAY_MS };
/** The longest window at each granularity, and the one asked for without start_time. */
export const COUNT_RANGE_MS: Record<Granularity, number> = { minute: DAY_MS, hour: 7 * DAY_MS, day: 7 * DAY_MS };

/** Tweets created in [startMs, endMs), counted per unit of `sizeMs` (epoch-aligned). */
export interface CountWindow {
  startMs: number;
  endMs: number;
  sizeMs: number;
}

/** The start of the unit the window's first bucket lies in: a tweet's bucket is its units after it. */
export function countOrigin(window: CountWindow): number {
  return Math.floor(window.startMs / window.sizeMs) * window.sizeMs;
}

/** How many buckets the window has: the units it touches. */
export function bucketCount(window: CountWindow): number {
  return Math.ceil(window.endMs / window.sizeMs) - Math.floor(window.startMs / window.sizeMs);
}

/** The most buckets a request at `granularity` can have: its longest window, across one more unit. */
export function mostBuckets(granularity: Granularity): number {
  return COUNT_RANGE_MS[granularity] / GRANULARITY_MS[granularity] + 1;
}

/** The rule between start_time and end_time, said on end_time, for every granularity at once. */
export const COUNT_RANGE_RULE = (() => {
  const byRange = new Map<number, Granularity[]>();
  for (const granularity of GRANULARITIES) {
    const days = COUNT_RANGE_MS[granularity] / DAY_MS;
    byRange.set(days, [...(byRange.get(days) ?? []), granularity]);
  }
  const parts = [...byRange].map(
    ([days, granularities]) => `${days === 1 ? "1 day" : `${days} days`} at granularity=${granularities.join(" or ")}`,
  );
  return `must be at most ${parts.join(", ")} after start_time`;
})();

/** Whether start_time and end_time, where both are given, are close enough for the granularity. */
export function withinCountRange(params: {
  granularity: Granularity;
  start_time?: number;
  end_time?: number;
}): boolean {
  const { granularity, start_time: start, end_time: end } = params;
  return start === undefined || end === undefined || end - start <= COUNT_RANGE_MS[granularity];
}

/**
 * The window of a request. Without end_time it ends at the whole second after the world's clock, so
 * that the newest post (which is the clock of an imported world) is counted as search finds it, or at
 * the longest range after start_time if that comes first; a start_time past the clock, or a window that
 * would end before it starts, is refused, naming start_time.
 */
export function countWindow(granularity: Granularity, clockMs: number, startMs?: number, endMs?: number): CountWindow {
  const range = COUNT_RANGE_MS[granularity];
  const afterClock = Math.floor(clockMs / 1000) * 1000 + 1000;
  const end = endMs ?? (startMs === undefined ? afterClock : Math.min(afterClock, startMs + range));
  const start = startMs ?? end - range;
  if (start >= end || start > clockMs) {
    const message = `must be before end_time, and not after now (${new Date(clockMs).toISOString()})`;
    throw invalidRequest(`Invalid request: start_time ${message}`, [{ parameter: "start_time", message }]);
  }
  return { startMs: start, endMs: end, sizeMs: GRANULARITY_MS[granularity] };
}

/** The window cut to its newest `buckets` (an answer that must be smaller keeps the most recent). */
export function newestBuckets(window: CountWindow, buckets: number): CountWindow {
  const firstKept = countOrigin(window) + (bucketCount(window) - buckets) * window.sizeMs;
  return { ...window, startMs: Math.max(window.startMs, firstKept) };
}

/** `query` confined to the window: what a store counts. */
export function countedQuery(query: SearchNode, window: CountWindow): SearchNode {
  const at = (ms: number) => new Date(ms).toISOString();
  return {
    kind: "and",
    children: [query, { kind: "since", date: at(window.startMs) }, { kind: "until", date: at(window.endMs) }],
  };
}

/** The counts of each bucket of `window`, oldest first, as X writes them: each clipped to the window. */
export function countBuckets(window: CountWindow, counts: readonly number[]): CountBucket[] {
  const origin = countOrigin(window);
  return counts.map((tweet_count, index) => {
    const start = Math.max(window.startMs, origin + index * window.sizeMs);
    const end = Math.min(window.endMs, origin + (index + 1) * window.sizeMs);
    return { start: new Date(start).toISOString(), end: new Date(end).toISOString(), tweet_count };
  });
}
