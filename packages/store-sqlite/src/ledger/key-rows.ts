// The key rows checkKey reads, kept while the ledger has not changed. Every charged request checks
// its key first, and that read (the digest's index, the key, its account) cost more than the read it
// pays for. Whether anything changed is two cheaper statements: total_changes() counts the rows this
// connection has written (its debits, revocations, grants, new keys), and the ledger file's
// data_version moves when another connection commits to it (another worker, the operator CLI). Either
// moving forgets every kept row, so a check is never staler than a read made at its time would be.
import type { Database, Statement } from "bun:sqlite";
import { ledgerSchemaOf } from "../ledger-file.ts";

/** Rows kept at most; a flood of made-up digests starts the cache over instead of growing it. */
const MAX_ROWS = 10_000;

export class KeyRows<Row> {
  readonly #mineVersion: Statement<{ mine: number }, []>;
  readonly #theirVersion: Statement<{ data_version: number }, []>;
  readonly #read: (keyHash: string) => Row | null;
  readonly #rows = new Map<string, Row | null>();
  #mine = -1;
  #theirs = -1;

  constructor(db: Database, read: (keyHash: string) => Row | null) {
    this.#mineVersion = db.query("SELECT total_changes() AS mine");
    // The pragma statement: the pragma_data_version table reads the main file's, whatever schema it is given.
    this.#theirVersion = db.query(`PRAGMA ${ledgerSchemaOf(db)}.data_version`);
    this.#read = read;
  }

  /** The row of `keyHash` as the database holds it now; null: no such key. */
  get(keyHash: string): Row | null {
    // Each is one row, always.
    const { mine } = this.#mineVersion.get() as { mine: number };
    const { data_version: theirs } = this.#theirVersion.get() as { data_version: number };
    if (mine !== this.#mine || theirs !== this.#theirs) {
      this.#rows.clear();
      this.#mine = mine;
      this.#theirs = theirs;
    }
    const kept = this.#rows.get(keyHash);
    if (kept !== undefined) return kept;
    const row = this.#read(keyHash);
    if (this.#rows.size >= MAX_ROWS) this.#rows.clear();
    this.#rows.set(keyHash, row);
    return row;
  }
}
