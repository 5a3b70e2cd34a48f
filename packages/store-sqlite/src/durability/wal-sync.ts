// The fsync of synchronous=FULL, taken off the event loop for the group commits of a serving
// connection. bun:sqlite commits on the event loop, and under FULL each COMMIT waits there for the WAL's
// fsync. A group commit instead commits under NORMAL (the frames reach the OS, not yet the disk) and
// then waits for `WalSync.sync()`, an fdatasync of the -wal file on a thread-pool thread. An fsync
// flushes the whole file, whoever wrote it, so one sync covers every commit made before it started:
// batches that commit while one is running share the next, instead of each starting its own. No
// promise of a group commit settles before the sync that covers it, so a charge is still reported
// only once it is on disk, as under FULL.
//
// A failed fdatasync fails every later one too. Linux reports a write-back error once and may mark the
// lost pages clean, so a later fdatasync can succeed over frames that never reached the disk, and WAL
// recovery drops every frame after a lost one: from the first failure on, nothing this connection
// commits can be reported as durable (PostgreSQL stops on the same error for the same reason).
import { close, fdatasync, openSync } from "node:fs";

/** The WAL could not be flushed: the disk is failing, and the commits it covered may not be durable. */
export class WalSyncError extends Error {
  constructor(cause: unknown) {
    super(
      `the write-ahead log could not be flushed to disk: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
    this.name = "WalSyncError";
  }
}

export class WalSync {
  readonly #fd: number;
  /** The fdatasync now running: it may have started before the caller's commit. */
  #running: Promise<void> | undefined;
  /** The one that starts when the running one ends, shared by every commit made meanwhile. */
  #next: Promise<void> | undefined;
  /** The first failure, which every later sync reports. */
  #failed: WalSyncError | undefined;
  #closed = false;

  /** `walPath` must exist: SQLite creates it when the connection first reads in WAL mode. */
  constructor(walPath: string) {
    // Read-only is enough: Linux flushes a file through any descriptor of it.
    this.#fd = openSync(walPath, "r");
  }

  /** Resolves once every frame written to the WAL before this call is on disk. */
  sync(): Promise<void> {
    if (this.#failed) return Promise.reject(this.#failed);
    if (this.#closed) return Promise.reject(new WalSyncError(new Error("the database is closed")));
    if (this.#running === undefined) return this.#start();
    this.#next ??= this.#running.then(
      () => this.#startNext(),
      () => this.#startNext(),
    );
    return this.#next;
  }

  #startNext(): Promise<void> {
    this.#next = undefined;
    return this.#failed ? Promise.reject(this.#failed) : this.#start();
  }

  #start(): Promise<void> {
    const running = new Promise<void>((resolve, reject) => {
      fdatasync(this.#fd, (error) => {
        if (!error) return resolve();
        if (!this.#failed) {
          this.#failed = new WalSyncError(error);
          console.error(
            `Error: ${this.#failed.message}; no charge is reported from now on (503): restart on a working disk`,
          );
        }
        reject(this.#failed);
      });
    }).finally(() => {
      if (this.#running === running) this.#running = undefined;
    });
    this.#running = running;
    return running;
  }

  /** After the last sync has settled: a sync still running keeps its descriptor until it ends. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([this.#running, this.#next]);
    await new Promise<void>((resolve) => close(this.#fd, () => resolve()));
  }
}
