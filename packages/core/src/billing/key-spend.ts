// What a key has spent against its own limit. A key keeps its spend in total and on the UTC day of its
// latest charge; a day limit starts over when the day changes. The ledgers read the spend under the
// account's write lock, decide with these functions (through decideDebit) and write the result in the
// transaction of the debit, so a limit can never be overrun by concurrent requests.
import type { KeyAllowance, KeyLimit } from "../ports/ledger.ts";

const DAY_MS = 86_400_000;

/** The UTC day number of an epoch-ms instant. */
export function utcDayOf(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

export interface KeySpend {
  limit: KeyLimit | null;
  total: number;
  /** Spent on `day`, the UTC day of the latest charge. */
  today: number;
  day: number | null;
}

/** What the key's limit leaves it at `now`; null for a key without a limit. */
export function allowanceOf(spend: KeySpend, now: number): KeyAllowance | null {
  if (!spend.limit) return null;
  const spent = spend.limit.per === "total" ? spend.total : spend.day === utcDayOf(now) ? spend.today : 0;
  return { ...spend.limit, remaining: Math.max(0, spend.limit.credits - spent) };
}

/** The spend after a charge of `credits` at `now`. */
export function charged(spend: KeySpend, credits: number, now: number): KeySpend {
  const day = utcDayOf(now);
  return { ...spend, total: spend.total + credits, today: (spend.day === day ? spend.today : 0) + credits, day };
}

/** The spend after a charge made at `chargedAt` was refunded: it counts against no limit any more. */
export function refunded(spend: KeySpend, credits: number, chargedAt: number): KeySpend {
  const sameDay = spend.day === utcDayOf(chargedAt);
  return {
    ...spend,
    total: Math.max(0, spend.total - credits),
    today: sameDay ? Math.max(0, spend.today - credits) : spend.today,
  };
}
