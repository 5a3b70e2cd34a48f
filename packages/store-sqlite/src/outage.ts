// Which failures mean the database cannot be reached (retry later) rather than a bug, and the one answer
// every port of this adapter gives them, service_unavailable, so that every surface (HTTP, MCP, the
// dashboard, the CLI) answers an outage alike. The ports make their fixed statements with db.query,
// which close() finalizes; db.prepare's outlive it on a connection that stays open and answering, so
// closing the database would be no outage at all.
import { SQLiteError } from "bun:sqlite";
import { ApiError } from "@social/core";

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

function isDatabaseOutage(error: unknown): boolean {
  if (error instanceof SQLiteError) return OUTAGE_CODES.has(String(error.code).split("_").slice(0, 2).join("_"));
  // bun:sqlite throws a plain Error or a RangeError for a closed database handle, worded two ways.
  return error instanceof Error && /closed database|database has closed/i.test(error.message);
}

function unavailableIfOutage(error: unknown): never {
  if (!isDatabaseOutage(error)) throw error;
  // The client learns only that it may retry; the operator needs the database's own words.
  console.error(
    JSON.stringify({
      at: new Date().toISOString(),
      level: "error",
      kind: "service_unavailable",
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    }),
  );
  throw new ApiError("service_unavailable", "The service is temporarily unavailable: retry in a few seconds");
}

/**
 * Makes every method of the class `port` turn a database outage, thrown or rejected, into ApiError
 * service_unavailable; every other error passes unchanged. Done to the class rather than to an
 * instance, so that no caller can hold a port of this adapter that answers an outage otherwise.
 */
export function answerOutagesAsUnavailable(port: { prototype: object }): void {
  for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(port.prototype))) {
    const method: unknown = descriptor.value;
    if (name === "constructor" || typeof method !== "function") continue;
    Object.defineProperty(port.prototype, name, {
      ...descriptor,
      value: function (this: unknown, ...args: unknown[]): unknown {
        try {
          const result: unknown = method.apply(this, args);
          return result instanceof Promise ? result.catch(unavailableIfOutage) : result;
        } catch (error) {
          return unavailableIfOutage(error);
        }
      },
    });
  }
}
