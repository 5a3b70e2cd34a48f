// Server secrets that must survive restarts and be shared by every process on the same database (the
// HTTP server, the MCP stdio server): generated on first use and stored, unless configuration supplies
// one. They never appear in logs.
import type { Database } from "bun:sqlite";
import { migrate } from "./migrate.ts";

const settingsMigrations = [
  (db: Database) => db.run("CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL)"),
];

function randomSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The stored secret called `name`, created atomically on first use (two processes agree on one). */
export function persistentSecret(db: Database, name: string): string {
  migrate(db, "settings", settingsMigrations);
  db.query("INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT(name) DO NOTHING").run(name, randomSecret());
  const row = db.query<{ value: string }, [string]>("SELECT value FROM settings WHERE name = ?").get(name);
  if (!row) throw new Error(`setting ${name} could not be stored`);
  return row.value;
}
