// Which failures mean the database cannot be reached (503, retry later) rather than a bug (500).
import { SQLiteError } from "bun:sqlite";

const OUTAGE_CODES = new Set([
  "SQLITE_BUSY",
  "SQLITE_LOCKED",
  "SQLITE_IOERR",
  "SQLITE_CANTOPEN",
  "SQLITE_FULL",
  "SQLITE_READONLY",
  "SQLITE_PROTOCOL",
  "SQLITE_NOMEM",
]);

export function isDatabaseOutage(error: unknown): boolean {
  if (error instanceof SQLiteError) return OUTAGE_CODES.has(String(error.code).split("_").slice(0, 2).join("_"));
  // bun:sqlite throws a plain Error for a closed database handle.
  return error instanceof Error && /closed database/i.test(error.message);
}
