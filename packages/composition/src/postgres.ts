// The Backend on the operator's PostgreSQL: one pool per process, every schema migrated as it opens.
import { DEFAULT_SEARCH_LIMITS } from "@social/core";
import {
  buildWorld,
  hasWorld,
  isDatabaseOutage,
  openPostgres,
  PostgresAccounts,
  PostgresIdempotency,
  PostgresLedger,
  PostgresMonitors,
  PostgresRequestLog,
  PostgresSessions,
  PostgresStore,
  PostgresWorldImport,
  PostgresWorldRemoval,
} from "@social/store-postgres";
import type { Backend, BackendOptions } from "./backend.ts";
import { composeBackend } from "./compose.ts";
import { describeDatabase } from "./describe.ts";

/**
 * Opens the pool and migrates. A server that cannot be reached becomes one sentence naming it, for
 * the operator's one line at start: the client's own error ("Failed to connect") names neither the
 * host nor the database.
 */
export async function openPostgresBackend(url: string, options: BackendOptions): Promise<Backend> {
  // A serving process bounds every lock wait as a search bounds its own: a request is never kept
  // waiting without end behind an operator's REINDEX, ALTER TABLE or migration.
  const sql = await openPostgres(url, {
    ...(options.max === undefined ? {} : { max: options.max }),
    ...(options.serving === true ? { lockWaitMs: DEFAULT_SEARCH_LIMITS.waitMs } : {}),
  }).catch((error: unknown) => {
    if (!isDatabaseOutage(error)) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`${describeDatabase(url)} cannot be reached (${reason})`, { cause: error });
  });
  const ledger = new PostgresLedger(sql);
  const requestLog = new PostgresRequestLog(sql);
  return composeBackend({
    kind: "postgres",
    isOutage: isDatabaseOutage,
    store: new PostgresStore(sql),
    ledger,
    accounts: new PostgresAccounts(sql, { onKeysChanged: (accountId) => ledger.keysChanged(accountId) }),
    idempotency: new PostgresIdempotency(sql),
    sessions: new PostgresSessions(sql),
    monitors: new PostgresMonitors(sql),
    requestLog,
    hasWorld: () => hasWorld(sql),
    buildWorld: (world, onProgress) => buildWorld(sql, world, onProgress),
    worldImport: () => new PostgresWorldImport(sql),
    worldRemoval: () => new PostgresWorldRemoval(sql),
    close: async () => {
      ledger.close();
      await requestLog.flush();
      await sql.close();
    },
  });
}
