// What tells this process's cached key checks (store-common's KeyCache) that they must go: a counter in
// the ledger's file that triggers move in the transaction of the change, whichever process or tool
// wrote it (another worker, the operator CLI), when a key is revoked or its limit or expiry changes, or
// a grant is made. Every rise of a balance is a grant, refunds included, which also lower the spend of
// the key that was charged; a batch nets its refunds and debits into one balance write, so the grant,
// not the balance, is what says so. Unknown keys are never kept, so a new key needs nothing. Debits
// move none of it, so a worker's cached checks outlive the other workers' charges. That matters because
// each of their commits drops this connection's whole page cache of the ledger's file: reading a key
// and its account again after one costs five page reads from the WAL, while the counter costs two.
//
// The counter is read once per turn of the event loop, and again as soon as this connection has written
// since (a key revoked or credits granted in this process count at once). A change another process
// commits while a turn is under way reaches the checks of the next turn; a key revoked in that moment
// is still refused at the debit, which reads the key again.
import type { Database, Statement } from "bun:sqlite";
import type { Migration } from "../migrate.ts";

export const keyChangesMigration: Migration = (db) => {
  db.run("CREATE TABLE key_changes (id INTEGER PRIMARY KEY CHECK (id = 1), changes INTEGER NOT NULL)");
  db.run("INSERT INTO key_changes (id, changes) VALUES (1, 0)");
  const count = "BEGIN UPDATE key_changes SET changes = changes + 1; END";
  db.run(`CREATE TRIGGER api_keys_changed AFTER UPDATE OF revoked_at, credit_limit, limit_per, expires_at ON api_keys
    WHEN NEW.revoked_at IS NOT OLD.revoked_at OR NEW.credit_limit IS NOT OLD.credit_limit
      OR NEW.limit_per IS NOT OLD.limit_per OR NEW.expires_at IS NOT OLD.expires_at ${count}`);
  db.run(`CREATE TRIGGER grants_made AFTER INSERT ON grants ${count}`);
};

export class KeyChanges {
  readonly #counter: Statement<{ changes: number }, []>;
  readonly #writes: Statement<{ writes: number }, []>;
  #changes = -1;
  #writesSeen = -1;
  #readThisTurn = false;

  constructor(db: Database) {
    this.#counter = db.query("SELECT changes FROM key_changes");
    // Rows this connection has written, whatever it wrote: no read of the file, so no page reads.
    this.#writes = db.query("SELECT total_changes() AS writes");
  }

  /** Whether a change was made since the last call that said so; true on the first call. */
  moved(): boolean {
    const { writes } = this.#writes.get() as { writes: number };
    if (this.#readThisTurn && writes === this.#writesSeen) return false;
    this.#writesSeen = writes;
    if (!this.#readThisTurn) {
      this.#readThisTurn = true;
      setImmediate(() => {
        this.#readThisTurn = false;
      });
    }
    const { changes } = this.#counter.get() as { changes: number };
    if (changes === this.#changes) return false;
    this.#changes = changes;
    return true;
  }
}
