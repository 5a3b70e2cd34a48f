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
      // Ends the transaction, so that the connection goes back to the pool outside one.
      await tx`ROLLBACK`.catch(() => {});
      throw error;
    }
    planned.write.execute();
    const [written, committed] = await Promise.allSettled([planned.write, tx`COMMIT`.execute()]);
    // After a refused write the server answers the COMMIT as a ROLLBACK: Bun ends each query with a
    // Sync of its own, so the COMMIT is never skipped. A connection released inside a transaction all
    // the same is closed by Bun, not handed out again.
    if (written.status === "rejected") throw written.reason;
    if (committed.status === "rejected") throw committed.reason;
    if (committed.value.command !== "COMMIT") {
      throw new Error(`the batch's COMMIT was answered ${committed.value.command}: nothing was committed`);
    }
    return planned.result;
  } finally {
    await tx.release();
  }
}
