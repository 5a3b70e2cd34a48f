// The checkpointer's thread (checkpointer.ts starts it): its own connection to the database file, so
// copying the WAL's pages into the database and fsyncing it never runs on the serving event loop.
//
// - Every TICK_MS, a PASSIVE checkpoint copies what the WAL holds that no reader still needs. It takes
//   no lock that the writer or a reader waits on.
// - A WAL is written from its beginning again only when a commit starts while the WAL is wholly
//   copied, which a stream of commits never leaves time for: past RESTART_AFTER_BYTES of frames, a
//   FULL checkpoint takes the write lock, waits up to WAIT_MS for readers of older frames, and copies
//   what the last PASSIVE left (the serving connection's group commit waits for it on a timer, not
//   inside SQLite); the next commit starts the WAL over. Neither rewrites the WAL-index header, so the
//   serving connection keeps its page cache.
// - After IDLE_TICKS ticks without a commit, a TRUNCATE checkpoint gives the file's space back.
// - A FULL or TRUNCATE that could not finish (a long reader, such as an export on another connection)
//   is not tried again for BACKOFF_TICKS, so the write lock is not taken for nothing every tick.
import { Database } from "bun:sqlite";
import { parentPort, workerData } from "node:worker_threads";
import type { CheckpointerMessage } from "./checkpointer.ts";

const TICK_MS = 100;
const IDLE_TICKS = 10;
const RESTART_AFTER_BYTES = 16 * 1024 * 1024;
/** How long FULL and TRUNCATE wait for a commit or a read in progress before giving up. */
const WAIT_MS = 20;
const BACKOFF_TICKS = 10;

interface CheckpointRow {
  busy: number;
  log: number;
  checkpointed: number;
}

const say = (message: CheckpointerMessage) => parentPort?.postMessage(message);
const db = new Database(workerData as string);
db.run(`PRAGMA busy_timeout = ${WAIT_MS}`);
const passive = db.query<CheckpointRow, []>("PRAGMA wal_checkpoint(PASSIVE)");
const full = db.query<CheckpointRow, []>("PRAGMA wal_checkpoint(FULL)");
const truncate = db.query<CheckpointRow, []>("PRAGMA wal_checkpoint(TRUNCATE)");
const pageBytes = (db.query("PRAGMA page_size").get() as { page_size: number }).page_size;

let lastLog = -1;
let idleTicks = 0;
let backoff = 0;
/** A checkpoint that takes the write lock; one that could not finish backs the next ones off. */
const blocking = (checkpoint: typeof full) => {
  if (checkpoint.get()?.busy) backoff = BACKOFF_TICKS;
};
const timer = setInterval(() => {
  try {
    const log = passive.get()?.log ?? 0;
    idleTicks = log === lastLog ? idleTicks + 1 : 0;
    lastLog = log;
    if (backoff > 0) backoff--;
    else if (log * pageBytes > RESTART_AFTER_BYTES) blocking(full);
    else if (idleTicks >= IDLE_TICKS && log > 0) blocking(truncate);
  } catch (error) {
    // SQLITE_BUSY (another process checkpoints the same file) backs off like a checkpoint that could
    // not finish; anything else is reported, and the serving connection takes its checkpoints back.
    if (String((error as { code?: string }).code).startsWith("SQLITE_BUSY")) {
      backoff = BACKOFF_TICKS;
      return;
    }
    clearInterval(timer);
    db.close();
    say({ failed: error instanceof Error ? error.message : String(error) });
  }
}, TICK_MS);

parentPort?.on("message", (message: "stop") => {
  if (message !== "stop") return;
  clearInterval(timer);
  db.close();
  say("stopped");
  parentPort?.close();
});
