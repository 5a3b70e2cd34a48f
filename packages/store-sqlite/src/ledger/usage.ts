// Read-only summaries of what an account spent, for the dashboard chart and the operator CLI.
import type { Database } from "bun:sqlite";
import type { DailyUsage, RequestUsage, UsageGroup, UsageQuery } from "@social/core";
import { USAGE_GROUP_COLUMN, type UsageGroupRowOf, usageGroupsOf } from "@social/store-common";

const DAY_MS = 86_400_000;

/**
 * One entry per UTC day for the last `days` days, today included and last, with zero-usage days
 * present so a chart needs no gap filling.
 */
export function dailyUsage(db: Database, accountId: string, days = 30, now: number = Date.now()): DailyUsage[] {
  const firstDay = Math.floor(now / DAY_MS) - (days - 1);
  const rows = db
    .query<{ day: number; requests: number; credits: number }, [number, string, number]>(
      `SELECT created_at / ?1 AS day, count(*) AS requests, sum(credits) AS credits
       FROM usage WHERE account_id = ?2 AND created_at >= ?3 * ?1 GROUP BY day`,
    )
    .all(DAY_MS, accountId, firstDay);
  const byDay = new Map(rows.map((row) => [row.day, row]));
  return Array.from({ length: days }, (_, offset) => {
    const day = firstDay + offset;
    const row = byDay.get(day);
    return {
      day: new Date(day * DAY_MS).toISOString().slice(0, 10),
      requests: row?.requests ?? 0,
      credits: row?.credits ?? 0,
    };
  });
}

/** The account's latest charged requests, newest first. */
export function recentRequests(db: Database, accountId: string, limit = 20): RequestUsage[] {
  return db
    .query<RequestUsage, [string, number]>(
      `SELECT request_id AS requestId, key_id AS keyId, endpoint, credits, created_at AS createdAt
       FROM usage WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`,
    )
    .all(accountId, limit);
}

/** See Accounts.usageSummary. */
export function usageSummary(db: Database, accountId: string, query: UsageQuery): UsageGroup[] {
  const rows = db
    .query<UsageGroupRowOf<number>, [string, number, number]>(
      `SELECT ${USAGE_GROUP_COLUMN[query.groupBy]} AS grouped, count(*) AS requests, sum(credits) AS credits
       FROM usage u WHERE account_id = ? AND created_at >= ? AND created_at < ?
         AND NOT EXISTS (SELECT 1 FROM grants g WHERE g.refund_of = u.request_id)
       GROUP BY grouped`,
    )
    .all(accountId, query.from, query.to);
  return usageGroupsOf(rows, query.groupBy);
}
