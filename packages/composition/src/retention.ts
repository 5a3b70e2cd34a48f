// Retention, for the processes that serve requests: what is older than its days purged at start and
// every hour after. A purge is idempotent and removes in bounded chunks, so processes that purge
// together only share the work.
// - The request log (REQUEST_LOG_DAYS), in every serving process (the HTTP server, the MCP stdio
//   server). Charges stay: their usage rows are the ledger's, and the dashboard lists those within the
//   same days only.
// - Monitors' matches (MONITOR_MATCH_DAYS), in the HTTP server, which delivers them. A purged match is
//   absent from every read and delivery, never charged; seqs and what was charged stay.
import type { Monitors, RequestLog } from "@social/core";
import { MATCHES_REMOVED_AT_ONCE } from "@social/store-common";

const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

export interface Retention {
  stop(): void;
}

type Warn = (message: string) => void;

/** Runs `purge` with the cut-off `days` ago now and every hour; a failure is a warning, tried next hour. */
function keepDays(what: string, days: number, purge: (before: number) => Promise<unknown>, warn: Warn): Retention {
  const run = () =>
    purge(Date.now() - days * DAY_MS).catch((error: unknown) => {
      warn(`${what} could not be purged: ${error instanceof Error ? error.message : String(error)}`);
    });
  void run();
  const timer = setInterval(run, HOUR_MS);
  (timer as { unref?: () => void }).unref?.();
  return { stop: () => clearInterval(timer) };
}

export function keepRequestLog(log: RequestLog, days: number, warn: Warn): Retention {
  return keepDays("the request log", days, (before) => log.purge(before), warn);
}

/** Each chunk is its own short transaction: deliveries and reads go on between them. */
async function purgeMatches(monitors: Pick<Monitors, "purgeMatches">, before: number): Promise<void> {
  while ((await monitors.purgeMatches(before, MATCHES_REMOVED_AT_ONCE)) === MATCHES_REMOVED_AT_ONCE) {
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

export function keepMonitorMatches(monitors: Pick<Monitors, "purgeMatches">, days: number, warn: Warn): Retention {
  return keepDays("monitor matches", days, (before) => purgeMatches(monitors, before), warn);
}
