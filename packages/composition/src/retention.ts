// The request log's retention, for every process that serves requests (the HTTP server, the MCP stdio
// server): REQUEST_LOG_DAYS read one way, and entries older than it purged at start and every hour
// after. A purge is idempotent and removes in bounded chunks, so processes that purge together only
// share the work. Charges stay: their usage rows are the ledger's, and the dashboard lists those within
// the same days only.
import type { RequestLog } from "@social/core";

const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
export const DEFAULT_REQUEST_LOG_DAYS = 30;
/** Ten years: longer is a typo. */
const MAX_REQUEST_LOG_DAYS = 3650;

/** REQUEST_LOG_DAYS: whole days from 0 (no log) to ten years; 30 when unset. */
export function requestLogDaysFrom(value: string | undefined): number {
  if (value === undefined || value === "") return DEFAULT_REQUEST_LOG_DAYS;
  const days = Number(value);
  if (!Number.isInteger(days) || days < 0 || days > MAX_REQUEST_LOG_DAYS) {
    throw new Error(
      `REQUEST_LOG_DAYS must be a whole number of days from 0 (no request log) to ${MAX_REQUEST_LOG_DAYS}`,
    );
  }
  return days;
}

export interface Retention {
  stop(): void;
}

export function keepRequestLog(log: RequestLog, days: number, warn: (message: string) => void): Retention {
  const purge = () =>
    log.purge(Date.now() - days * DAY_MS).catch((error: unknown) => {
      warn(`the request log could not be purged: ${error instanceof Error ? error.message : String(error)}`);
    });
  void purge();
  const timer = setInterval(purge, HOUR_MS);
  (timer as { unref?: () => void }).unref?.();
  return { stop: () => clearInterval(timer) };
}
