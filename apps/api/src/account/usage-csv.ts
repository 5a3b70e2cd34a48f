// /v1/usage as CSV, for a spreadsheet: a header row naming the group and the two counts, one row per
// group, RFC 4180 quoting. Groups are days, key ids and endpoint paths, but every field is quoted when
// it needs to be rather than trusted not to.
import { USAGE_GROUP_NAME, type UsageGrouping } from "@social/core";

interface UsageData {
  from: string;
  to: string;
  group_by: UsageGrouping;
  groups: Record<string, string | number>[];
}

function field(value: string | number): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function usageCsv(data: UsageData): string {
  const name = USAGE_GROUP_NAME[data.group_by];
  const lines = [
    [name, "requests", "credits"],
    ...data.groups.map((row) => [row[name] ?? "", row.requests ?? 0, row.credits ?? 0]),
  ];
  return `${lines.map((line) => line.map(field).join(",")).join("\r\n")}\r\n`;
}

/** format=csv asks for CSV; without a format, so does an Accept header that names text/csv. */
export function wantsCsv(format: unknown, accept: string | null): boolean {
  if (format !== undefined) return format === "csv";
  return (accept ?? "").split(",").some((type) => type.split(";")[0]?.trim().toLowerCase() === "text/csv");
}

/** The file a browser saves the CSV as. */
export function usageFileName(data: UsageData): string {
  return `usage-${data.from}-${data.to}-by-${data.group_by}.csv`;
}
