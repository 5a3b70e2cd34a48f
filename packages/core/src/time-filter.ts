// Community tweets' `time_filter`: how far back each one reaches from the world's clock, the one rule
// both adapters bound their reads by.
import type { TimeFilter } from "./ports/store.ts";

const DAY_MS = 86_400_000;
/** How far back each time filter reaches from the world's clock; a month is 30 days, a year 365. */
const TIME_FILTER_DAYS: Record<Exclude<TimeFilter, "all">, number> = { day: 1, week: 7, month: 30, year: 365 };

/** The earliest time, in epoch milliseconds, that `filter` lets through at the world's clock `clockMs`. */
export function timeFilterStartMs(filter: Exclude<TimeFilter, "all">, clockMs: number): number {
  return clockMs - TIME_FILTER_DAYS[filter] * DAY_MS;
}
