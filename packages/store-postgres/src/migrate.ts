// Versioned schema migrations per component, as on SQLite, applied at start by every process. Many
// processes may start together: each migration runs in a transaction that first takes one advisory lock,
// so the first migrates and the others, once they get the lock, find the version already applied. A
// migration waits for its locks however long it must, whatever bound the pool sets on other statements.
import type { SQL, TransactionSQL } from "bun";

export type Migration = (tx: TransactionSQL) => Promise<unknown>;

/** An arbitrary constant that names this application's migration lock among all advisory locks. */
const MIGRATION_LOCK = 7_365_019_442;

export async function migrate(sql: SQL, component: string, migrations: readonly Migration[]): Promise<void> {
  for (let version = 1; version <= migrations.length; version++) {
    const step = migrations[version - 1];
    if (!step) break;
    await sql.begin(async (tx) => {
      await tx`SET LOCAL lock_timeout = 0`;
      await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
      await tx`CREATE TABLE IF NOT EXISTS schema_migrations (component TEXT PRIMARY KEY, version INTEGER NOT NULL)`;
      const [row] = await tx`SELECT version FROM schema_migrations WHERE component = ${component}`;
      if ((row?.version ?? 0) >= version) return;
      await step(tx);
      await tx`INSERT INTO schema_migrations (component, version) VALUES (${component}, ${version})
               ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version`;
    });
  }
}
