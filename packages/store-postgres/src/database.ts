// One pool per process on the operator's PostgreSQL, with every component's schema migrated. BIGINT
// columns arrive as strings from Bun.sql; row mappers turn them into numbers (the schema bounds every
// amount and timestamp by Number.MAX_SAFE_INTEGER).
import { SQL } from "bun";
import { accountsMigrations } from "./accounts/schema.ts";
import { ledgerMigrations, settingsMigrations } from "./ledger/schema.ts";
import { migrate } from "./migrate.ts";
import { sessionMigrations } from "./sessions/schema.ts";
import { worldMigrations } from "./world/schema.ts";

export interface PostgresOptions {
  /** Connections in this process's pool. */
  max?: number;
}

export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<SQL> {
  const sql = new SQL(url, { max: options.max ?? 20 });
  try {
    await migrate(sql, "world", worldMigrations);
    await migrate(sql, "ledger", ledgerMigrations);
    await migrate(sql, "accounts", accountsMigrations);
    await migrate(sql, "settings", settingsMigrations);
    await migrate(sql, "dashboard", sessionMigrations);
  } catch (error) {
    // A server that cannot be reached (or a migration that failed) must not leave a pool keeping the
    // process alive after the caller has reported it.
    await sql.close();
    throw error;
  }
  return sql;
}
