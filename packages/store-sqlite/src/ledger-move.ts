// A database made before the ledger had a file of its own (ledger-file.ts) holds the ledger's tables in
// the world's file. The first process to open it copies them into a new ledger file and drops them from
// the world's, under the world's write lock, so other processes opening it meanwhile wait and then find
// the move done. Restartable at any instant: the copy is built under another name and renamed into place
// whole, and while the world's file still holds the tables, they are the ledger, so a move cut short is
// copied again from them (a process of the previous release may have charged into them since). A token
// in the world's file and in the copy tells a ledger file this move made from one of another origin,
// which is never overwritten.
import { Database } from "bun:sqlite";
import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { BUSY_TIMEOUT_MS, restrictAccess } from "./connection.ts";
import { ledgerTables, migrateLedger, tablesOf } from "./ledger-file.ts";

/** Which move made a ledger file: in the world's file until the move ends, and in the ledger's after. */
const MOVE_TABLE = "ledger_move";

/** How long a process opening the database waits for another's move: a large ledger takes a while to copy. */
const MOVE_WAIT_MS = 30 * 60 * 1000;

const holdsLedger = (db: Database) => tablesOf(db, "main").includes("accounts");

export function moveLedgerOut(db: Database, worldPath: string, ledgerPath: string): void {
  if (!holdsLedger(db)) return;
  const secureDelete = (db.query("PRAGMA secure_delete").get() as { secure_delete: number }).secure_delete;
  db.run(`PRAGMA busy_timeout = ${MOVE_WAIT_MS}`);
  try {
    const token = prepareMove(db);
    if (token === undefined) return;
    // Dropping a table deletes its rows first, which foreign keys would check against tables dropped
    // before it; and the pages it frees are zeroed rather than left in the world's file with key
    // digests and usage in them. SQLite ignores foreign_keys inside a transaction.
    db.run("PRAGMA foreign_keys = OFF");
    db.run("PRAGMA secure_delete = ON");
    db.transaction(() => {
      if (!holdsLedger(db)) return;
      refuseAnotherLedger(ledgerPath, token);
      copyLedger(worldPath, ledgerPath);
      // The migrations' rows of the ledger's components stay: a release from before the split, opened
      // on this file by mistake, then finds its ledger current and fails on the missing tables instead
      // of starting an empty ledger.
      for (const table of [...ledgerTables(), MOVE_TABLE]) db.run(`DROP TABLE main."${table}"`);
    }).immediate();
  } finally {
    db.run(`PRAGMA secure_delete = ${secureDelete}`);
    db.run("PRAGMA foreign_keys = ON");
    db.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }
}

/**
 * Under the world's write lock: brings the old tables to the current schema, so that they copy column
 * for column, and keeps the move's token. Undefined: another process moved the ledger meanwhile.
 */
function prepareMove(db: Database): string | undefined {
  return db
    .transaction(() => {
      if (!holdsLedger(db)) return undefined;
      migrateLedger(db);
      db.run(`CREATE TABLE IF NOT EXISTS main.${MOVE_TABLE} (token TEXT NOT NULL)`);
      const kept = db.query<{ token: string }, []>(`SELECT token FROM main.${MOVE_TABLE}`).get();
      if (kept !== null) return kept.token;
      const token = crypto.randomUUID();
      db.run(`INSERT INTO main.${MOVE_TABLE} (token) VALUES (?)`, [token]);
      return token;
    })
    .immediate();
}

/** A ledger file that is neither empty nor this move's copy is another ledger: one of the two would be lost. */
function refuseAnotherLedger(ledgerPath: string, token: string): void {
  if (!existsSync(ledgerPath)) return;
  const ledger = new Database(ledgerPath, { strict: true });
  try {
    ledger.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    const tables = tablesOf(ledger, "main");
    if (tables.length === 0) return;
    if (tables.includes(MOVE_TABLE) && ledger.query(`SELECT 1 FROM ${MOVE_TABLE} WHERE token = ?`).get(token)) return;
  } finally {
    ledger.close();
  }
  throw new Error(
    `${ledgerPath} already holds a ledger, and the world's file beside it holds another (made before the ledger had a file of its own): restore the pair of files of one backup`,
  );
}

/**
 * Builds the ledger file from the world's tables under a temporary name, on disk before it is renamed
 * into place, and the rename on disk before the caller drops the old tables.
 */
function copyLedger(worldPath: string, ledgerPath: string): void {
  const building = `${ledgerPath}-moving`;
  removeWithWal(building);
  restrictAccess(building);
  const target = new Database(building, { create: true, strict: true });
  try {
    // Rebuilt from the start after any failure, so no WAL: the file holds every page once it commits.
    target.run("PRAGMA journal_mode = DELETE");
    target.run("PRAGMA synchronous = FULL");
    migrateLedger(target);
    // The rows were consistent where they were; copied table by table, a grant that refunds a usage
    // row may come before that row.
    target.run("PRAGMA foreign_keys = OFF");
    target.run("ATTACH DATABASE ? AS old", [worldPath]);
    // Deferred: the world's write lock is the mover's own, held by its other connection.
    target.transaction(() => {
      for (const table of ledgerTables()) {
        const columns = target
          .query<{ name: string }, [string]>("SELECT name FROM pragma_table_info(?)")
          .all(table)
          .map((column) => `"${column.name}"`)
          .join(", ");
        // The rows a migration seeds (monitor_queries' one row) come from the old table too.
        target.run(`DELETE FROM main."${table}"`);
        target.run(`INSERT INTO main."${table}" (${columns}) SELECT ${columns} FROM old."${table}"`);
      }
      target.run(`CREATE TABLE main.${MOVE_TABLE} AS SELECT token FROM old.${MOVE_TABLE}`);
    })();
    target.run("DETACH DATABASE old");
  } finally {
    target.close();
  }
  removeWithWal(ledgerPath);
  renameSync(building, ledgerPath);
  const folder = openSync(dirname(resolve(ledgerPath)), "r");
  try {
    fsyncSync(folder);
  } finally {
    closeSync(folder);
  }
}

function removeWithWal(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) rmSync(file, { force: true });
}
