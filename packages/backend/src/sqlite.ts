// The Backend on one SQLite file. bun:sqlite is synchronous; wrapping its calls in async functions
// gives the apps the one shape they also get from PostgreSQL.
import {
  buildWorld,
  closeDatabase,
  hasWorld,
  openDatabase,
  SqliteAccounts,
  SqliteIdempotency,
  SqliteLedger,
  SqliteRequestLog,
  SqliteSessions,
  SqliteStore,
  SqliteWorldImport,
  SqliteWorldRemoval,
} from "@social/store-sqlite";
import type { Backend, BackendOptions } from "./backend.ts";
import { SettlingLedger } from "./settling-ledger.ts";

export function openSqliteBackend(url: string, options: BackendOptions): Backend {
  const db = openDatabase(url, {
    ...(options.synchronous ? { synchronous: options.synchronous } : {}),
    serving: options.serving === true,
  });
  const accounts = new SqliteAccounts(db);
  const requestLog = new SqliteRequestLog(db);
  const ledger = new SettlingLedger(new SqliteLedger(db));
  return {
    kind: "sqlite",
    store: new SqliteStore(db),
    ledger,
    accounts,
    idempotency: new SqliteIdempotency(db),
    sessions: new SqliteSessions(db),
    requestLog,
    secret: (name) => accounts.secret(name),
    hasWorld: async () => hasWorld(db),
    buildWorld: async (world, onProgress) => buildWorld(db, world, onProgress),
    worldImport: () => new SqliteWorldImport(db),
    worldRemoval: () => new SqliteWorldRemoval(db),
    close: async () => {
      await ledger.settled();
      await requestLog.flush();
      await closeDatabase(db);
    },
  };
}
