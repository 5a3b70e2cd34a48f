// Locks another session holds, as an operator's REINDEX, ALTER TABLE or VACUUM FULL would, for the
// tests of what waiting for them does to the requests that meet them.
import { SQL, type TransactionSQL } from "bun";

export interface HeldLock {
  /** Ends the holding transaction; later calls do nothing. */
  release(): Promise<void>;
}

/** What an operator's statements hold: the table, or (REINDEX) one of its indexes and the table against writes. */
export const LOCKS = {
  table: "LOCK tweets IN ACCESS EXCLUSIVE MODE",
  searchIndex: "REINDEX INDEX tweets_search",
} as const;

/** One of LOCKS, taken in a transaction on a connection of its own and held until released. */
export function holdLock(url: string, lock: (typeof LOCKS)[keyof typeof LOCKS]): Promise<HeldLock> {
  return holdLocks(url, (tx) => tx.unsafe(lock));
}

/**
 * What `statements` lock, in a transaction on a connection of its own, held until released (as a
 * transaction of another process holds them while it runs).
 */
export async function holdLocks(url: string, statements: (tx: TransactionSQL) => Promise<unknown>): Promise<HeldLock> {
  const holder = new SQL(url, { max: 1 });
  let locked = () => {};
  let release = () => {};
  const isLocked = new Promise<void>((resolve) => {
    locked = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const transaction = holder.begin(async (tx) => {
    await statements(tx);
    locked();
    await released;
  });
  await Promise.race([isLocked, transaction]);
  let ended: Promise<void> | undefined;
  return {
    release() {
      ended ??= (async () => {
        release();
        await transaction;
        await holder.close();
      })();
      return ended;
    },
  };
}

/**
 * Resolves once `count` sessions of the database of `sql` wait for a lock (checked every 10 ms); rejects
 * after `timeoutMs`.
 */
export async function waitersOnLocks(sql: SQL, count: number, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const [row] = await sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock'`;
    if ((row?.n ?? 0) >= count) return;
    await Bun.sleep(10);
  }
  throw new Error(`fewer than ${count} sessions waited for a lock within ${timeoutMs} ms`);
}
