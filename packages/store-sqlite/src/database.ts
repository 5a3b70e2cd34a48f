// Opens the two SQLite files of a database, in WAL mode, and brings their schemas up to date: the
// social world at DATABASE_URL, and beside it the ledger file (ledger-file.ts), attached as `ledger`.
import type { Database } from "bun:sqlite";
import { parseDatabaseUrl } from "@social/core";
import { connect, restrictAccess } from "./connection.ts";
import { serveFrom } from "./durability/serving.ts";
import { attachLedger, LEDGER_CACHE_KIB, ledgerPathOf, migrateLedger } from "./ledger-file.ts";
import { moveLedgerOut } from "./ledger-move.ts";
import { migrate } from "./migrate.ts";
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
  const synchronous = options.synchronous ?? "FULL";
  // In memory, one connection sees every write: the ledger's tables stay in the one database.
  if (path === ":memory:") {
    const db = connect(path, synchronous, PAGE_CACHE_KIB);
    migrate(db, "world", worldMigrations);
    migrateLedger(db);
    return db;
  }
  const ledgerPath = ledgerPathOf(path);
  restrictAccess(path);
  restrictAccess(ledgerPath);
  // 16 MiB of page cache instead of SQLite's 2 MiB: the upper levels of the tweet, FTS and follow
  // indexes stay in memory; the pages below come from the OS's cache. A larger cache served no more
  // lookups or searches per second on the large world, and only held more of the server's memory.
  const db = connect(path, synchronous, PAGE_CACHE_KIB);
  try {
    migrate(db, "world", worldMigrations);
    moveLedgerOut(db, path, ledgerPath);
    const ledger = connect(ledgerPath, synchronous, LEDGER_CACHE_KIB);
    try {
      migrateLedger(ledger);
    } finally {
      ledger.close();
    }
    attachLedger(db, ledgerPath, synchronous);
  } catch (error) {
    db.close();
    throw error;
  }
  if (options.serving) serveFrom(db, path, ledgerPath, synchronous);
  return db;
}
