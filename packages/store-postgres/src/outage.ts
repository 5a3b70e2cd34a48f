// Which failures mean PostgreSQL cannot be reached or cannot serve now (retry later) rather than a bug:
// the composition (packages/composition) hands out every port of this adapter through core's
// answeringOutages with it, as on SQLite, so every surface answers an outage alike. Nothing here needs
// to reconnect: Bun's pool opens new connections on the next query once the server is back.
import { SQL } from "bun";
import { ServerUnreachable } from "./server-probe.ts";

/** Bun's own codes for a connection that closed, never opened, or was closed with the pool. */
const CLIENT_OUTAGE_CODES = new Set([
  "ERR_POSTGRES_CONNECTION_CLOSED",
  "ERR_POSTGRES_CONNECTION_FAILED",
  "ERR_POSTGRES_CONNECTION_REFUSED",
  "ERR_POSTGRES_CONNECTION_TIMEOUT",
  "ERR_POSTGRES_IDLE_TIMEOUT",
  "ERR_POSTGRES_LIFETIME_TIMEOUT",
]);

/** Socket errors that may surface unwrapped from the client. */
const SOCKET_OUTAGE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/**
 * SQLSTATEs of a server that is going away, starting, out of resources or, after a failover, read-only,
 * or that kept a statement waiting for a lock past the pool's bound: class 08 (connection exception),
 * 57P01-57P03 (shutdown, crash, starting up), class 53 (too many connections, disk full, out of
 * memory), 25006 (read-only transaction), 55P03 (lock not available).
 */
function isServerOutage(sqlState: string): boolean {
  return (
    sqlState.startsWith("08") ||
    sqlState.startsWith("53") ||
    sqlState === "57P01" ||
    sqlState === "57P02" ||
    sqlState === "57P03" ||
    sqlState === "25006" ||
    sqlState === "55P03"
  );
}

export function isDatabaseOutage(error: unknown): boolean {
  if (error instanceof ServerUnreachable) return true;
  if (error instanceof SQL.PostgresError) {
    return CLIENT_OUTAGE_CODES.has(error.code) || (error.errno !== undefined && isServerOutage(error.errno));
  }
  return error instanceof Error && "code" in error && SOCKET_OUTAGE_CODES.has(String(error.code));
}
