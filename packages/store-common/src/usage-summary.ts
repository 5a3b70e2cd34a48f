// Usage summaries the same on every adapter: each database groups its own rows (the grouping column is
// one of three fixed SQL expressions, never text from a request), and this puts them in one order and
// one form.
import type { UsageGroup, UsageGrouping } from "@social/core";

const DAY_MS = 86_400_000;

/** The SQL expression each grouping groups `usage` rows by; both dialects read it alike. */
export const USAGE_GROUP_COLUMN: Readonly<Record<UsageGrouping, string>> = {
  day: "created_at / 86400000",
  endpoint: "endpoint",
  key: "key_id",
};

/** A grouped row as a database returns it; `Int` is how it hands out a BIGINT. */
export interface UsageGroupRowOf<Int> {
  grouped: string | Int;
  requests: Int;
  credits: Int;
}

/** Days oldest first, as YYYY-MM-DD; endpoints and keys by credits spent, most first, then by name. */
export function usageGroupsOf(rows: readonly UsageGroupRowOf<number | string>[], groupBy: UsageGrouping): UsageGroup[] {
  const groups = rows.map((row) => ({
    group: groupBy === "day" ? new Date(Number(row.grouped) * DAY_MS).toISOString().slice(0, 10) : String(row.grouped),
    requests: Number(row.requests),
    credits: Number(row.credits),
  }));
  return groups.sort((a, b) =>
    groupBy === "day" ? a.group.localeCompare(b.group) : b.credits - a.credits || a.group.localeCompare(b.group),
  );
}
