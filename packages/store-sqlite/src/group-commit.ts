// Group commit on bun:sqlite, for every port that writes on the request path (the ledger, the
// Idempotency-Key records). A write transaction's cost is mostly its lock and its WAL append, not its
// statements, so the writes of all requests that arrive together share one BEGIN IMMEDIATE … COMMIT,
// made in the next macrotask. No promise settles before the COMMIT that holds its write, so an answer
// never reports what the database does not have. While another connection (another worker, the
// operator CLI, a world rebuild) holds the write lock, the batch waits on the event loop, not inside
// SQLite, whose busy wait would stop it; it gives up after the connection's busy_timeout.
// On a serving connection under synchronous=FULL, a batch commits under NORMAL and its promises settle
// after the shared fsync of the ledger file's WAL that covers it (durability/wal-sync.ts): the next
// batch commits meanwhile. Charges write the ledger's file (ledger-file.ts); a batch that writes the
// world's file too (the monitors' matcher removing arrivals) commits that file with its own fsync.
import { type Database, SQLiteError, type Statement } from "bun:sqlite";
import { commitSyncOf } from "./durability/serving.ts";
import type { WalSync } from "./durability/wal-sync.ts";
import { LEDGER_SCHEMA } from "./ledger-file.ts";

/**
 * How long a batch waits before it tries again for the write lock another connection holds: the next
 * turn of the event loop first, since a charge holds it for a moment, then 1, 2 and 4 ms, then every
 * LOCK_RETRY_MAX_MS while a longer hold lasts (an import's batch, the operator CLI), so that a wait
 * costs a try per 5 ms and not a busy loop.
 */
const LOCK_RETRY_MAX_MS = 5;
function lockRetryDelayMs(tries: number): number {
  return tries <= 1 ? 0 : Math.min(LOCK_RETRY_MAX_MS, 2 ** (tries - 2));
}

/** What became of one write of a batch that committed: each write fails or succeeds alone. */
export type Outcome<R> = { result: R } | { error: unknown };

/**
 * Applies a batch's writes in order inside its transaction. A write that fails alone returns its
 * error; one that throws aborts the whole batch (rolled back, every write rejected with it).
 */
export type ApplyBatch<W, R> = (writes: readonly W[]) => Outcome<R>[];

interface Queued<W, R> {
  write: W;
  /** When it was queued: it gives up on a held lock after the connection's busy_timeout. */
  queuedAt: number;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

export class GroupCommit<W, R> {
  readonly #db: Database;
  readonly #apply: ApplyBatch<W, R>;
  #queue: Queued<W, R>[] = [];
  #flushScheduled = false;
  /** The tries for the write lock that found it held, since a batch last took it. */
  #lockTries = 0;
  readonly #begin: Statement;
  readonly #commit: Statement;
  readonly #rollback: Statement;
  readonly #walSync: WalSync | undefined;

  constructor(db: Database, apply: ApplyBatch<W, R>) {
    this.#db = db;
    this.#apply = apply;
    this.#walSync = commitSyncOf(db);
    // IMMEDIATE takes the write lock up front: a deferred transaction that later needs it can fail
    // with SQLITE_BUSY instead of waiting for another connection's commit.
    this.#begin = db.query("BEGIN IMMEDIATE");
    this.#commit = db.query("COMMIT");
    this.#rollback = db.query("ROLLBACK");
  }

  /**
   * Resolves once the batch holding `write` has committed, and on a connection that defers its fsync
   * once the WAL holding it is on disk, with what `apply` made of it.
   */
  submit(write: W): Promise<R> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ write, queuedAt: Date.now(), resolve, reject });
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        // A macrotask, not a microtask: requests whose I/O completed in the same event-loop turn
        // join the batch too, not only the writes issued by one synchronous run.
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#flushScheduled = false;
    const batch = this.#queue;
    this.#queue = [];
    let outcomes: Outcome<R>[];
    try {
      outcomes = this.#writeBatch(batch);
      this.#lockTries = 0;
    } catch (error) {
      const waiting = isBusy(error) ? this.#stillWaiting(batch) : [];
      for (const queued of batch) if (!waiting.includes(queued)) queued.reject(error);
      this.#lockTries = waiting.length > 0 ? this.#lockTries + 1 : 0;
      if (waiting.length > 0) {
        // Writes queued meanwhile join the retry, in order, instead of racing it for the lock.
        this.#queue = [...waiting, ...this.#queue];
        this.#flushScheduled = true;
        const delay = lockRetryDelayMs(this.#lockTries);
        if (delay === 0) setImmediate(() => this.#flush());
        else setTimeout(() => this.#flush(), delay);
      }
      return;
    }
    if (this.#walSync === undefined) {
      settle(batch, outcomes);
      return;
    }
    this.#walSync.sync().then(
      () => settle(batch, outcomes),
      // Committed but perhaps not on disk: a write that succeeded gets the sync's error, which its
      // port answers as an outage (and the ledger refunds); one that failed alone keeps its own error.
      (error) =>
        batch.forEach((queued, index) => {
          const outcome = outcomes[index];
          queued.reject(outcome && "result" in outcome ? error : outcome?.error);
        }),
    );
  }

  /** Applies the batch inside one transaction; throws (having rolled back) if it fails. */
  #writeBatch(batch: readonly Queued<W, R>[]): Outcome<R>[] {
    // Without its fsync when the WAL sync settles the batch instead. SQLite takes the level only
    // outside a transaction, and the connection's other writes keep FULL. db.run, not a kept
    // statement: SQLite applies this pragma when the statement is prepared.
    if (this.#walSync) this.#db.run(`PRAGMA ${LEDGER_SCHEMA}.synchronous = NORMAL`);
    try {
      this.#beginWithoutWaiting();
      try {
        const outcomes = this.#apply(batch.map((queued) => queued.write));
        this.#commit.run();
        return outcomes;
      } catch (error) {
        if (this.#db.inTransaction) this.#rollback.run();
        throw error;
      }
    } finally {
      if (this.#walSync) this.#restoreFullSync();
    }
  }

  /**
   * Back to FULL for the connection's other writes. It cannot fail a batch: one that committed is
   * settled by its sync, and one that failed keeps its own error. A transaction a failed ROLLBACK left
   * open refuses the change; the connection then stays at NORMAL, which the operator is told.
   */
  #restoreFullSync(): void {
    try {
      this.#db.run(`PRAGMA ${LEDGER_SCHEMA}.synchronous = FULL`);
    } catch (error) {
      console.error(
        `Warning: synchronous could not be set back to FULL after a group commit (${error instanceof Error ? error.message : String(error)}); other writes of this connection commit under NORMAL`,
      );
    }
  }

  /** The connection's busy_timeout in ms. SQLite evaluates this pragma when it is prepared, so never cache it. */
  #busyTimeout(): number {
    const statement = this.#db.prepare<{ timeout: number }, []>("PRAGMA busy_timeout");
    try {
      return statement.get()?.timeout ?? 0;
    } finally {
      statement.finalize();
    }
  }

  /** The writes of a batch refused the lock that have waited less than the connection's busy_timeout. */
  #stillWaiting(batch: readonly Queued<W, R>[]): Queued<W, R>[] {
    const patience = this.#busyTimeout();
    const now = Date.now();
    return batch.filter((queued) => now - queued.queuedAt < patience);
  }

  /** Takes the write lock at once or throws SQLITE_BUSY: SQLite's own wait would block the event loop. */
  #beginWithoutWaiting(): void {
    const patience = this.#busyTimeout();
    this.#db.run("PRAGMA busy_timeout = 0");
    try {
      this.#begin.run();
    } finally {
      this.#db.run(`PRAGMA busy_timeout = ${patience}`);
    }
  }
}

function isBusy(error: unknown): boolean {
  return error instanceof SQLiteError && String(error.code).startsWith("SQLITE_BUSY");
}

/** Settles each write of a committed (and, where deferred, synced) batch with its own outcome. */
function settle<W, R>(batch: readonly Queued<W, R>[], outcomes: readonly Outcome<R>[]): void {
  batch.forEach((queued, index) => {
    const outcome = outcomes[index];
    if (outcome && "result" in outcome) queued.resolve(outcome.result);
    else queued.reject(outcome?.error);
  });
}

/**
 * Group commit for a port whose writes are each a few statements (a step): each step runs, in queue
 * order, inside the next batch's transaction, and resolves with what it returned once that commits. A
 * step that throws aborts its batch: its statements are not undone one by one.
 */
export class StepCommit {
  readonly #writes: GroupCommit<() => unknown, unknown>;

  constructor(db: Database) {
    this.#writes = new GroupCommit(db, (steps) => steps.map((step): Outcome<unknown> => ({ result: step() })));
  }

  run<T>(step: () => T): Promise<T> {
    // The queue holds steps of every return type; each promise gets back what its own step returned.
    return this.#writes.submit(step) as Promise<T>;
  }
}
