// What a key has spent against its own limit, the same on every adapter. Each key row keeps its spend
// in total and on the UTC day of its latest charge; a day limit starts over when the day changes. The
// ledger reads these under the account's write lock, decides with these functions and writes the result
// in the transaction of the debit, so a limit can never be overrun by concurrent requests.
import { type KeyAllowance, type KeyLimit, shortfallOf } from "@social/core";

const DAY_MS = 86_400_000;

/** The UTC day number of an epoch-ms instant, as the usage summaries count days. */
export function utcDayOf(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

/** The limit and spend columns of a key row; `Int` is how the database hands out a BIGINT. */
export interface KeySpendRowOf<Int> {
  credit_limit: Int | null;
  limit_per: string | null;
  expires_at: Int | null;
  spent_total: Int;
  spent_today: Int;
  spent_day: Int | null;
}

export interface KeySpend {
  limit: KeyLimit | null;
  total: number;
  /** Spent on `day`, the UTC day of the latest charge. */
  today: number;
  day: number | null;
}

const nullable = (value: number | string | null) => (value === null ? null : Number(value));

export function keySpendOf(row: KeySpendRowOf<number | string>): KeySpend {
  const credits = nullable(row.credit_limit);
  return {
    limit: credits === null ? null : { credits, per: row.limit_per === "day" ? "day" : "total" },
    total: Number(row.spent_total),
    today: Number(row.spent_today),
    day: nullable(row.spent_day),
  };
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

/** Why a debit of `credits` cannot be made now (the account's balance or the key's limit), if it cannot. */
export function shortfall(balance: number, spend: KeySpend | undefined, credits: number, now: number) {
  return shortfallOf(balance, spend ? allowanceOf(spend, now) : null, credits);
}
