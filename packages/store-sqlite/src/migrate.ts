// Versioned schema migrations, applied in order when a database is opened. Each component (the world
// of social data, the ledger) keeps its own ordered list, so the two evolve independently.
import type { Database } from "bun:sqlite";

export type Migration = (db: Database) => void;

// Processes that open a new database at once (a server's workers, an importer beside the server) each
// read the version inside the step's own write transaction, so a step another process applied while
// this one waited for the lock is not applied twice.
export function migrate(db: Database, component: string, migrations: readonly Migration[]): void {
  db.run("CREATE TABLE IF NOT EXISTS schema_migrations (component TEXT PRIMARY KEY, version INTEGER NOT NULL)");
  const applied = db.query<{ version: number }, [string]>("SELECT version FROM schema_migrations WHERE component = ?");
  for (let version = 1; version <= migrations.length; version++) {
    const step = migrations[version - 1];
    if (!step) break;
    if ((applied.get(component)?.version ?? 0) >= version) continue;
    db.transaction(() => {
      if ((applied.get(component)?.version ?? 0) >= version) return;
      step(db);
      db.query(
        "INSERT INTO schema_migrations (component, version) VALUES (?, ?) ON CONFLICT(component) DO UPDATE SET version = excluded.version",
      ).run(component, version);
    }).immediate();
  }
}
