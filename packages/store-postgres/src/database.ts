// One pool per process on the operator's PostgreSQL (whose connections are opened only once a probe has
// met the server: ./server-probe.ts), with every component's schema migrated. BIGINT
// columns arrive as strings from Bun.sql; row mappers turn them into numbers (the schema bounds every
// amount and timestamp by Number.MAX_SAFE_INTEGER).
import type { SQL } from "bun";
import { accountsMigrations } from "./accounts/schema.ts";
import { ledgerMigrations, settingsMigrations } from "./ledger/schema.ts";
import { shardMigrations } from "./ledger/shards-schema.ts";
import { migrate } from "./migrate.ts";
import { monitorMigrations } from "./monitors/schema.ts";
import { probedPool } from "./server-probe.ts";
import { sessionMigrations } from "./sessions/schema.ts";
import { worldMigrations } from "./world/schema.ts";

/**
 * Connections in a process's pool by default (Bun's own default). More only adds server processes that
 * each wake for one query: with many lookups in flight, fewer connections each carry a few queries per
 * round trip, and the server spends less CPU per lookup.
 */
export const POOL_SIZE = 10;

export interface PostgresOptions {
  /** Connections in this process's pool. */
  max?: number;
  /**
   * How long any statement may wait for a lock another session holds (an operator's REINDEX, ALTER
   * TABLE or import), after which it fails as an outage: a serving process answers 503 rather than
   * keep a request waiting without end. Migrations wait as long as they must. None when absent.
   */
  lockWaitMs?: number;
}

export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<SQL> {
  const settings: Record<string, string | number> = {
    // Every transaction here is written for READ COMMITTED, each statement seeing what committed before
    // it began (the ledger reads what other shards hold after it locks an account's row, for one): a
    // server whose default is stricter would break them.
    default_transaction_isolation: "read committed",
    ...(options.lockWaitMs === undefined ? {} : { lock_timeout: options.lockWaitMs }),
  };
  const sql = probedPool(url, options.max ?? POOL_SIZE, settings);
  try {
    await migrate(sql, "world", worldMigrations);
    await migrate(sql, "ledger", ledgerMigrations);
    await migrate(sql, "accounts", accountsMigrations);
    await migrate(sql, "credit_shards", shardMigrations);
    await migrate(sql, "settings", settingsMigrations);
    await migrate(sql, "dashboard", sessionMigrations);
    await migrate(sql, "monitors", monitorMigrations);
  } catch (error) {
    // A server that cannot be reached (or a migration that failed) must not leave a pool keeping the
    // process alive after the caller has reported it.
    await sql.close();
    throw error;
  }
  return sql;
}
