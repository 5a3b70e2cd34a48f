// The request log's retention, for every process that serves requests (the HTTP server, the MCP stdio
// server): entries older than REQUEST_LOG_DAYS purged at start and every hour after. A purge is
// idempotent and removes in bounded chunks, so processes that purge together only share the work.
// Charges stay: their usage rows are the ledger's, and the dashboard lists those within the same days
// only.
import type { RequestLog } from "@social/core";

const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

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
