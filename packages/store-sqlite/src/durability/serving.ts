// What a connection that serves requests (the HTTP server's, the MCP stdio server's) does differently
// from one that runs a command: the two costs a commit pays on the event loop are moved off it.
//
// - Checkpoints: SQLite's automatic checkpoint runs inside the COMMIT that crosses its threshold,
//   copying pages into the database file and fsyncing it while every other request waits. A serving
//   connection turns it off and a checkpointer thread per file (the world's and the ledger's) with its
//   own connection keeps each WAL bounded (checkpointer-thread.ts). Should one fail, the connection
//   takes its checkpoints back.
// - The fsync of synchronous=FULL: group commits, which write the ledger's file, commit under NORMAL and
//   wait for a shared fdatasync of its WAL on a thread-pool thread (wal-sync.ts, group-commit.ts). Every
//   other write of the connection (a key created, a grant, a session) still commits under FULL, which
//   also flushes what came before it.
import type { Database } from "bun:sqlite";
import type { Synchronous } from "../database.ts";
import { LEDGER_SCHEMA } from "../ledger-file.ts";
import { Checkpointer } from "./checkpointer.ts";
import { WalSync } from "./wal-sync.ts";

/** SQLite's own default, taken back if the checkpointer fails. */
const AUTOMATIC_CHECKPOINT_PAGES = 1000;
/**
 * When the WAL restarts from its beginning, SQLite truncates a file grown past this: a reader that kept
 * the WAL from restarting for a while (a long export on another connection) leaves no lasting file.
 */
const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

interface ServingParts {
  checkpointers: Checkpointer[];
  walSync: WalSync | undefined;
}

const serving = new WeakMap<Database, ServingParts>();

/** `ledgerPath`: the ledger's file, attached to `db`, whose WAL the group commits sync. */
export function serveFrom(db: Database, path: string, ledgerPath: string, synchronous: Synchronous): void {
  db.run("PRAGMA wal_autocheckpoint = 0");
  for (const schema of ["main", LEDGER_SCHEMA]) db.run(`PRAGMA ${schema}.journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  const failed = (file: string) => (message: string) => {
    db.run(`PRAGMA wal_autocheckpoint = ${AUTOMATIC_CHECKPOINT_PAGES}`);
    console.error(
      `Warning: the WAL checkpointer of ${file} stopped (${message}); commits checkpoint the WAL themselves again`,
    );
  };
  const checkpointers = [path, ledgerPath].map((file) => new Checkpointer(file, failed(file)));
  serving.set(db, {
    checkpointers,
    walSync: synchronous === "FULL" ? new WalSync(`${ledgerPath}-wal`) : undefined,
  });
}

/** The deferred WAL sync of a serving FULL connection; undefined: its commits are as durable as it says. */
export function commitSyncOf(db: Database): WalSync | undefined {
  return serving.get(db)?.walSync;
}

/**
 * Stops the checkpointer, closes the connection, then the WAL's descriptor: a batch committed before
 * the close still has its sync, and none can commit after it.
 */
export async function closeDatabase(db: Database): Promise<void> {
  const parts = serving.get(db);
  serving.delete(db);
  try {
    await Promise.all(parts?.checkpointers.map((checkpointer) => checkpointer.stop()) ?? []);
  } finally {
    db.close();
    await parts?.walSync?.close();
  }
}
