// Opens the one SQLite file that holds both the social world and the credit ledger, in WAL mode, and
// brings its schema up to date.
import { Database } from "bun:sqlite";
import { ledgerMigrations } from "./ledger/schema.ts";
import { migrate } from "./migrate.ts";
import { worldMigrations } from "./world/schema.ts";

/** `file:data/social.db`, `data/social.db` or `:memory:` → a path bun:sqlite opens. */
export function databasePath(url: string): string {
  return url.startsWith("file:") ? url.slice("file:".length) : url;
}

export function openDatabase(url: string): Database {
  const db = new Database(databasePath(url), { create: true, strict: true });
  db.run("PRAGMA journal_mode = WAL");
  // FULL: a debit reported to a client survives a power loss too; group commit amortizes the fsync.
  db.run("PRAGMA synchronous = FULL");
  db.run("PRAGMA foreign_keys = ON");
  db.run("PRAGMA busy_timeout = 5000");
  migrate(db, "world", worldMigrations);
  migrate(db, "ledger", ledgerMigrations);
  return db;
}
