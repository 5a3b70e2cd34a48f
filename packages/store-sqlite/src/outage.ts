// Which failures mean the database cannot be reached (retry later) rather than a bug: the composition
// (packages/composition) hands out every port of this adapter through core's answeringOutages with it, so
// that every surface (HTTP, MCP, the dashboard, the CLI) answers an outage alike. The ports make their
// fixed statements with db.query, which close() finalizes; db.prepare's outlive it on a connection that
// stays open and answering, so closing the database would be no outage at all.
import { SQLiteError } from "bun:sqlite";
import { WalSyncError } from "./durability/wal-sync.ts";

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
  if (error instanceof WalSyncError) return true;
  if (error instanceof SQLiteError) return OUTAGE_CODES.has(String(error.code).split("_").slice(0, 2).join("_"));
  // bun:sqlite throws a plain Error or a RangeError for a closed database handle, worded two ways.
  return error instanceof Error && /closed database|database has closed/i.test(error.message);
}
