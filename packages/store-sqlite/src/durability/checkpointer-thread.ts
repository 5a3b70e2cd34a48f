// The checkpointer's thread (checkpointer.ts starts it): its own connection to the database file, so
// copying the WAL's pages into the database and fsyncing it never runs on the serving event loop.
//
// - Every TICK_MS, a PASSIVE checkpoint copies what the WAL holds that no reader still needs. It takes
//   no lock that the writer or a reader waits on.
// - A WAL is written from its beginning again only when a commit starts while the WAL is wholly
//   copied, which a stream of commits never leaves time for: past RESTART_AFTER_BYTES of frames, a
//   FULL checkpoint holds the write lock for the little the last PASSIVE left (the serving connection's
//   group commit waits for it on a timer, not inside SQLite), and the next commit starts the WAL over.
//   Neither rewrites the WAL-index header, so the serving connection keeps its page cache.
// - After IDLE_TICKS ticks without a commit, a TRUNCATE checkpoint gives the file's space back.
import { Database } from "bun:sqlite";
import { parentPort, workerData } from "node:worker_threads";
import type { CheckpointerMessage } from "./checkpointer.ts";

const TICK_MS = 100;
const IDLE_TICKS = 10;
const RESTART_AFTER_BYTES = 16 * 1024 * 1024;
/** How long FULL and TRUNCATE wait for a commit or a read in progress before trying on a later tick. */
const WAIT_MS = 20;

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
const timer = setInterval(() => {
  try {
    const log = passive.get()?.log ?? 0;
    if (log * pageBytes > RESTART_AFTER_BYTES) full.get();
    idleTicks = log === lastLog ? idleTicks + 1 : 0;
    lastLog = log;
    // One that cannot finish (a reader is in the WAL) leaves `log` as it was: tried again next tick.
    if (idleTicks >= IDLE_TICKS && log > 0) truncate.get();
  } catch (error) {
    // SQLITE_BUSY (another process checkpoints the same file) is left for the next tick; anything
    // else is reported, and the serving connection takes its checkpoints back.
    if (String((error as { code?: string }).code).startsWith("SQLITE_BUSY")) return;
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
