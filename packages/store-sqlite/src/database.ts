// Opens the one SQLite file that holds both the social world and the credit ledger, in WAL mode, and
// brings its schema up to date.
import { Database } from "bun:sqlite";
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parseDatabaseUrl } from "@social/core";
import { serveFrom } from "./durability/serving.ts";
import { ledgerMigrations } from "./ledger/schema.ts";
import { migrate } from "./migrate.ts";
import { monitorMigrations } from "./monitors/schema.ts";
import { sessionMigrations } from "./sessions/schema.ts";
import { worldMigrations } from "./world/schema.ts";

/**
 * `file:data/social.db`, `data/social.db` or `:memory:` → a path bun:sqlite opens. Any other DATABASE_URL
 * is refused here, so no caller can take a server URL for a file name (@social/composition's openBackend
 * sends postgres:// URLs to the PostgreSQL adapter and never here).
 */
export function databasePath(url: string): string {
  const location = parseDatabaseUrl(url);
  if (location.kind === "postgres") throw new Error("DATABASE_URL selects PostgreSQL: open it with openBackend");
  return location.path;
}

/**
 * How a commit reaches the disk (SQLITE_SYNCHRONOUS). FULL, the default: every group commit is
 * fsynced before the responses it covers are sent, so a reported charge survives a power failure.
 * NORMAL: a reported charge survives a crash of the process (the crash test kills the server
 * mid-load), but the last commits can be lost in a power failure; `bun run bench` prints what it saves.
 */
export type Synchronous = "NORMAL" | "FULL";

const PAGE_CACHE_KIB = 16 * 1024;

// Owner-only, because `settings` holds the token and session secrets and the ledger holds every key's
// hash and every account's usage.
const FOLDER_MODE = 0o700;
const FILE_MODE = 0o600;

/**
 * Makes the database file owner-only before SQLite opens it: created with FILE_MODE, so that no other
 * user can open it even for an instant, or tightened when it exists, with the -wal and -shm a previous
 * run left. SQLite creates the -wal and -shm with the database file's permissions, so later ones
 * follow. A missing folder is created owner-only (the default, data/, is missing in a fresh checkout);
 * an existing folder is the operator's choice and stays as it is, as do files of another owner (which
 * this user could not change, and which someone shared on purpose).
 */
function restrictAccess(path: string): void {
  mkdirSync(dirname(resolve(path)), { recursive: true, mode: FOLDER_MODE });
  closeSync(openSync(path, "a", FILE_MODE));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    const stat = statSync(file, { throwIfNoEntry: false });
    if (stat !== undefined && stat.uid === process.getuid?.() && (stat.mode & 0o077) !== 0) chmodSync(file, FILE_MODE);
  }
}

export interface OpenOptions {
  synchronous?: Synchronous;
  /**
   * A connection that answers requests: its checkpoints and its group commits' fsyncs run on other
   * threads (durability/serving.ts). Close it with closeDatabase.
   */
  serving?: boolean;
}

export function openDatabase(url: string, options: OpenOptions = {}): Database {
  const path = databasePath(url);
  if (path !== ":memory:") restrictAccess(path);
  const db = new Database(path, { create: true, strict: true });
  const synchronous = options.synchronous ?? "FULL";
  db.run("PRAGMA journal_mode = WAL");
  db.run(`PRAGMA synchronous = ${synchronous}`);
  db.run("PRAGMA foreign_keys = ON");
  db.run("PRAGMA busy_timeout = 5000");
  // 16 MiB of page cache instead of SQLite's 2 MiB: the upper levels of the tweet, FTS and follow
  // indexes stay in memory; the pages below come from the OS's cache. A larger cache served no more
  // lookups or searches per second on the large world, and only held more of the server's memory.
  db.run(`PRAGMA cache_size = -${PAGE_CACHE_KIB}`);
  migrate(db, "world", worldMigrations);
  migrate(db, "ledger", ledgerMigrations);
  migrate(db, "dashboard", sessionMigrations);
  migrate(db, "monitors", monitorMigrations);
  if (options.serving && path !== ":memory:") serveFrom(db, path, synchronous);
  return db;
}
