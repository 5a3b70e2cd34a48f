// The Backend on SQLite (the world's file and the ledger's beside it). bun:sqlite is synchronous; wrapping its calls in async functions
// gives the apps the one shape they also get from PostgreSQL.
import {
  buildWorld,
  closeDatabase,
  hasWorld,
  isDatabaseOutage,
  openDatabase,
  SqliteAccounts,
  SqliteIdempotency,
  SqliteLedger,
  SqliteMonitors,
  SqliteRequestLog,
  SqliteSessions,
  SqliteStore,
  SqliteWorldImport,
  SqliteWorldRemoval,
} from "@social/store-sqlite";
import type { Backend, BackendOptions } from "./backend.ts";
import { composeBackend } from "./compose.ts";

export function openSqliteBackend(url: string, options: BackendOptions): Backend {
  const db = openDatabase(url, {
    ...(options.synchronous ? { synchronous: options.synchronous } : {}),
    serving: options.serving === true,
  });
  const requestLog = new SqliteRequestLog(db);
  return composeBackend({
    kind: "sqlite",
    isOutage: isDatabaseOutage,
    store: new SqliteStore(db),
    ledger: new SqliteLedger(db),
    accounts: new SqliteAccounts(db),
    idempotency: new SqliteIdempotency(db),
    sessions: new SqliteSessions(db),
    monitors: new SqliteMonitors(db),
    requestLog,
    hasWorld: async () => hasWorld(db),
    buildWorld: async (world, onProgress) => buildWorld(db, world, onProgress),
    worldImport: () => new SqliteWorldImport(db),
    worldRemoval: () => new SqliteWorldRemoval(db),
    close: async () => {
      await requestLog.flush();
      await closeDatabase(db);
    },
  });
}
