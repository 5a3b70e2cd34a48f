// A connection to one SQLite file with the settings every connection of the product has, and the
// file's permissions.
import { Database } from "bun:sqlite";
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Synchronous } from "./database.ts";

/** How long a statement waits for another connection's lock before SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;

export function connect(path: string, synchronous: Synchronous, cacheKib: number): Database {
  const db = new Database(path, { create: true, strict: true });
  // First: the switch to WAL waits for a process that is creating the same file.
  db.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.run("PRAGMA journal_mode = WAL");
  db.run(`PRAGMA synchronous = ${synchronous}`);
  db.run("PRAGMA foreign_keys = ON");
  db.run(`PRAGMA cache_size = -${cacheKib}`);
  return db;
}

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
export function restrictAccess(path: string): void {
  mkdirSync(dirname(resolve(path)), { recursive: true, mode: FOLDER_MODE });
  closeSync(openSync(path, "a", FILE_MODE));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    const stat = statSync(file, { throwIfNoEntry: false });
    if (stat !== undefined && stat.uid === process.getuid?.() && (stat.mode & 0o077) !== 0) chmodSync(file, FILE_MODE);
  }
}
