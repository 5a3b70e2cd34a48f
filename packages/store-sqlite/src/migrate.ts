// Versioned schema migrations, applied in order when a database is opened. Each component (the world
// of social data, the ledger) keeps its own ordered list, so the two evolve independently.
import type { Database } from "bun:sqlite";

export type Migration = (db: Database) => void;

export function migrate(db: Database, component: string, migrations: readonly Migration[]): void {
  db.run("CREATE TABLE IF NOT EXISTS schema_migrations (component TEXT PRIMARY KEY, version INTEGER NOT NULL)");
  const row = db
    .query<{ version: number }, [string]>("SELECT version FROM schema_migrations WHERE component = ?")
    .get(component);
  const applied = row?.version ?? 0;
  for (let version = applied + 1; version <= migrations.length; version++) {
    const step = migrations[version - 1];
    if (!step) break;
    db.transaction(() => {
      step(db);
      db.query(
        "INSERT INTO schema_migrations (component, version) VALUES (?, ?) ON CONFLICT(component) DO UPDATE SET version = excluded.version",
      ).run(component, version);
    }).immediate();
  }
}
