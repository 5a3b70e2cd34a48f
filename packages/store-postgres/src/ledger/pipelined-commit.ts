// A transaction whose COMMIT goes right behind its one write, without waiting for the write's answer
// first: the rows it locked are held one round trip less, and never across a turn of this process's
// event loop, which under load is most of what such a hold lasts. The write is one statement, and what
// `work` runs before it only reads and locks, so the COMMIT behind it commits all of the write or none:
// a write the server refuses aborts the transaction, and PostgreSQL answers the COMMIT behind it as a
// ROLLBACK; one that never reached the server leaves only reads to commit. Either way its error is
// thrown.
import type { ReservedSQL, SQL } from "bun";

export interface PipelinedWork<T> {
  result: T;
  /** Not started yet (queries are lazy): sent with the COMMIT behind it. */
  write: SQL.Query<unknown>;
}

/** `work` reads and locks what the write needs, and returns the write, not started. */
export async function committedBehind<T>(sql: SQL, work: (tx: ReservedSQL) => Promise<PipelinedWork<T>>): Promise<T> {
  const tx = await sql.reserve();
  try {
    await tx`BEGIN`;
    let planned: PipelinedWork<T>;
    try {
      planned = await work(tx);
    } catch (error) {
      await rollBack(tx);
      throw error;
    }
    planned.write.execute();
    const [written, committed] = await Promise.allSettled([planned.write, tx`COMMIT`.execute()]);
    if (written.status === "rejected") {
      // The server may have skipped the COMMIT after the failed write, leaving the transaction open.
      await rollBack(tx);
      throw written.reason;
    }
    if (committed.status === "rejected") throw committed.reason;
    return planned.result;
  } finally {
    await tx.release();
  }
}

/** Ends the transaction, if it is still open, so that the connection goes back to the pool outside one. */
async function rollBack(tx: ReservedSQL): Promise<void> {
  await tx`ROLLBACK`.catch(() => {});
}
