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

/**
 * How a commit reaches the disk (SQLITE_SYNCHRONOUS). NORMAL, the default: a committed debit survives
 * a crash of the process (the crash test kills the server mid-load) but the last commits may be lost
 * in a power failure. FULL: every commit is fsynced before its responses go out, so it survives that
 * too, at the cost `bun run bench` measures.
 */
export type Synchronous = "NORMAL" | "FULL";

export function synchronousFrom(value: string | undefined): Synchronous {
  const mode = (value || "NORMAL").toUpperCase();
  if (mode !== "NORMAL" && mode !== "FULL") throw new Error("SQLITE_SYNCHRONOUS must be NORMAL or FULL");
  return mode;
}

export function openDatabase(url: string, options: { synchronous?: Synchronous } = {}): Database {
  const db = new Database(databasePath(url), { create: true, strict: true });
  db.run("PRAGMA journal_mode = WAL");
  db.run(`PRAGMA synchronous = ${options.synchronous ?? "NORMAL"}`);
  db.run("PRAGMA foreign_keys = ON");
  db.run("PRAGMA busy_timeout = 5000");
  migrate(db, "world", worldMigrations);
  migrate(db, "ledger", ledgerMigrations);
  return db;
}
