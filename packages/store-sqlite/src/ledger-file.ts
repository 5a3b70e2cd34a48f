// The ledger file: the tables that charges and account changes write (accounts, keys, grants, usage,
// idempotency, the request log, dashboard sessions, monitors and their matches) live in a second file
// beside the world, `<world>-ledger`, attached to every connection as `ledger`. SQLite drops a
// connection's whole page cache of a file whenever another connection commits to that file; with the
// charges in a file of their own, one worker's charges no longer cost every other worker its cached
// world pages, only the few ledger pages. Statements name tables without a schema: each name exists in
// one of the two files, and SQLite looks in both.
//
// A transaction in WAL mode is atomic per file, not across the two, so a write that must be all or
// nothing stays within one file: a debit and its usage row, a monitor and its matches, the posts an
// import adds and their arrivals for the monitors' matcher.
import type { Database } from "bun:sqlite";
import { connect } from "./connection.ts";
import type { Synchronous } from "./database.ts";
import { ledgerMigrations } from "./ledger/schema.ts";
import { migrate } from "./migrate.ts";
import { monitorMigrations } from "./monitors/schema.ts";
import { sessionMigrations } from "./sessions/schema.ts";

export const LEDGER_SCHEMA = "ledger";

/**
 * The ledger's hot pages are few (an account, its keys, the newest leaves of usage and the request log);
 * every commit by another worker drops them anyway.
 */
export const LEDGER_CACHE_KIB = 4 * 1024;

/** Components whose tables live in the ledger file, in the order they migrate. */
const LEDGER_COMPONENTS = [
  ["ledger", ledgerMigrations],
  ["dashboard", sessionMigrations],
  ["monitors", monitorMigrations],
] as const;

/** SQLite's own tables and the migrations' record, which each file keeps for itself. */
const BOOKKEEPING = new Set(["schema_migrations", "sqlite_sequence"]);

export function ledgerPathOf(worldPath: string): string {
  return `${worldPath}-ledger`;
}

/** Every file of the database at `worldPath`: the world's and the ledger's, each with its -wal and -shm. */
export function databaseFiles(worldPath: string): string[] {
  return [worldPath, ledgerPathOf(worldPath)].flatMap((file) => [file, `${file}-wal`, `${file}-shm`]);
}

/** Creates or updates the ledger's tables in `db`'s main database. */
export function migrateLedger(db: Database): void {
  for (const [component, migrations] of LEDGER_COMPONENTS) migrate(db, component, migrations);
}

/**
 * Attaches the ledger's file. A table in both files would let one hide the other from every statement
 * that names it, so that is refused.
 */
export function attachLedger(db: Database, ledgerPath: string, synchronous: Synchronous): void {
  db.run(`ATTACH DATABASE ? AS ${LEDGER_SCHEMA}`, [ledgerPath]);
  const ledgerTablesHere = new Set(tablesOf(db, LEDGER_SCHEMA));
  const both = tablesOf(db, "main").filter((table) => !BOOKKEEPING.has(table) && ledgerTablesHere.has(table));
  if (both.length > 0) {
    throw new Error(
      `the world's file and ${ledgerPath} both hold ${both.join(", ")}: restore the pair of files of one backup`,
    );
  }
  db.run(`PRAGMA ${LEDGER_SCHEMA}.synchronous = ${synchronous}`);
  db.run(`PRAGMA ${LEDGER_SCHEMA}.cache_size = -${LEDGER_CACHE_KIB}`);
  // A first read opens the ledger's WAL, which the deferred fsync holds open (durability/wal-sync.ts).
  db.query(`SELECT count(*) FROM ${LEDGER_SCHEMA}.sqlite_master`).get();
}

/** The schema holding the ledger's tables on `db`: `ledger` where the file is attached, else `main` (in memory). */
export function ledgerSchemaOf(db: Database): string {
  const attached = db.query("SELECT 1 FROM pragma_database_list WHERE name = ?").get(LEDGER_SCHEMA);
  return attached === null ? "main" : LEDGER_SCHEMA;
}

let ledgerTableNames: readonly string[] | undefined;

/** The tables the ledger's migrations create, read off an empty database. */
export function ledgerTables(): readonly string[] {
  if (ledgerTableNames === undefined) {
    const scratch = connect(":memory:", "FULL", LEDGER_CACHE_KIB);
    migrateLedger(scratch);
    ledgerTableNames = tablesOf(scratch, "main").filter((table) => !BOOKKEEPING.has(table));
    scratch.close();
  }
  return ledgerTableNames;
}

export function tablesOf(db: Database, schema: string): string[] {
  return db
    .query<{ name: string }, []>(`SELECT name FROM ${schema}.sqlite_master WHERE type = 'table' ORDER BY name`)
    .all()
    .map((row) => row.name);
}
