// Credit shards: how processes charge one account without taking turns on its row.
//
// A batch that locked the account's row held it through its statements and its commit's WAL flush, so
// the batches of every process charging that account ran one after another. Instead, each ledger (one
// per process) spends from a shard of its own, a row of credit_shards that it fills from the account's
// row now and then, a block at a time; its batches lock only that shard, which no other process's
// batches lock. The account's balance is its row's plus all its shards', and every move between them
// happens inside one transaction, so the ledger's equation (grants = balance + usage) holds in every
// committed state, and no shard belongs to a process: a process that dies leaves its shard's credits in
// the balance, spendable by any other, and folded back into the account's row once idle.
//
// A debit that its shard and the account's row cannot cover while other shards hold enough credits is
// decided by a batch that locks all of the account's shards, then its row: refused only when the whole
// balance is short. A shard is made with the row locked, so once the row is held, the shards locked
// before it are all there are, or the locks are taken again (lockAccountsWhole).
//
// The lock order, kept by every writer so that none deadlocks: an account's shards (in shard order),
// then its row, then its keys' rows (in id order). A batch's lock on its own shard never waits for
// another process's batch; the writers that lock all of an account's shards (a debit that needs the
// whole balance, a change of a key's limit) wait for the batches in flight. Making a shard takes the row
// first, then the new row: only two processes that drew the same shard number could meet there, and
// PostgreSQL breaks that deadlock by failing one batch, which is written again debit by debit.
//
// A key's spend is kept the same way: a batch adds what each key spent to the key's part for its shard
// (key_spend_shards, written only under that shard's lock), and readers merge the parts (the
// api_key_totals view). A key with a credit limit is decided on its merged spend with its row locked,
// locked after the account's row whenever the batch takes that; a limit is set with all the account's
// shards and its row locked, so a batch that read the key without its limit commits before the change,
// or meets the limit when it locks the key.
import { randomInt } from "node:crypto";
import type { ReservedSQL, SQL, TransactionSQL } from "bun";

/** An account's balance, its row's and its shards', for a query on `accounts a`. */
export const ACCOUNT_BALANCE =
  "(a.balance + coalesce((SELECT sum(s.credits) FROM credit_shards s WHERE s.account_id = a.id), 0))::bigint";

/**
 * The share of what is left in an account's row that a shard takes when it must fill up, beyond what
 * its batch needs: large enough that a busy process seldom locks the row, small enough that the
 * processes charging one account all find some.
 */
const REFILL_SHARE = 16;

/** How many idle shards one fold moves back at most. */
const FOLD_LIMIT = 100;

/** A shard number for one ledger: two processes that draw the same one only take turns, as before. */
export function newShardNumber(): number {
  return randomInt(1, 2 ** 31 - 1);
}

/**
 * What a shard whose batch debits `debited` takes from its account's row (`main`), the row locked:
 * what the shard lacks and a share of the rest.
 */
export function refillOf(shard: number, main: number, debited: number): number {
  const lacking = Math.max(0, debited - shard);
  return lacking + Math.floor((main - lacking) / REFILL_SHARE);
}

/**
 * Locks every shard of the accounts (waiting for the batches that hold them), then their rows, and
 * returns what they hold. A shard made while the shards were being locked (its maker held the row) is
 * found once the rows are locked, when no more can be made: the locks are then given up and taken
 * again, with it.
 */
export async function lockAccountsWhole(tx: ReservedSQL | TransactionSQL, accountIds: readonly string[]) {
  const ids = tx.array([...accountIds], "TEXT");
  await tx`SAVEPOINT lock_accounts_whole`;
  for (;;) {
    const [shards, mains, all] = await Promise.all([
      tx<{ account_id: string; shard: number; credits: string }[]>`
        SELECT account_id, shard, credits FROM credit_shards WHERE account_id = ANY(${ids})
        ORDER BY account_id, shard FOR NO KEY UPDATE`,
      tx<{ id: string; balance: string }[]>`
        SELECT id, balance FROM accounts WHERE id = ANY(${ids}) ORDER BY id FOR NO KEY UPDATE`,
      tx<
        { account_id: string; shard: number }[]
      >`SELECT account_id, shard FROM credit_shards WHERE account_id = ANY(${ids})`,
    ]);
    const locked = new Set(shards.map((row) => `${row.account_id} ${row.shard}`));
    if (all.every((row) => locked.has(`${row.account_id} ${row.shard}`))) {
      await tx`RELEASE SAVEPOINT lock_accounts_whole`;
      return { shards, mains };
    }
    await tx`ROLLBACK TO SAVEPOINT lock_accounts_whole`;
  }
}

/**
 * Moves shards unused since `idleSince` back into their accounts' rows, and their keys' spend into the
 * keys' rows; returns how many. A shard in use is skipped; one folded while its process still lives
 * is made again by that process's next batch.
 */
export async function foldIdleShards(sql: SQL, idleSince: number): Promise<number> {
  return sql.begin(async (tx) => {
    const shards = await tx<{ account_id: string; shard: number; credits: string }[]>`
      SELECT account_id, shard, credits FROM credit_shards WHERE used_at < ${idleSince}
      ORDER BY account_id, shard LIMIT ${FOLD_LIMIT} FOR NO KEY UPDATE SKIP LOCKED`;
    if (shards.length === 0) return 0;
    const accounts = tx.array(
      shards.map((row) => row.account_id),
      "TEXT",
    );
    const numbers = tx.array(
      shards.map((row) => row.shard),
      "INT4",
    );
    await tx`SELECT id FROM accounts WHERE id = ANY(${accounts}) ORDER BY id FOR NO KEY UPDATE`;
    await tx`SELECT k.id FROM api_keys k JOIN key_spend_shards p ON p.key_id = k.id
             JOIN unnest(${accounts}, ${numbers}) AS f (account_id, shard) ON f.account_id = k.account_id AND f.shard = p.shard
             ORDER BY k.id FOR NO KEY UPDATE OF k`;
    await tx`UPDATE accounts a SET balance = a.balance + f.credits
             FROM (SELECT s.account_id, sum(s.credits) AS credits FROM credit_shards s
                   JOIN unnest(${accounts}, ${numbers}) AS f (account_id, shard) USING (account_id, shard)
                   GROUP BY s.account_id) f
             WHERE a.id = f.account_id`;
    // A key has one part per shard: folded a shard at a time, each key row takes one part per statement.
    for (const shard of new Set(shards.map((row) => row.shard))) {
      const folded = tx.array(
        shards.filter((row) => row.shard === shard).map((row) => row.account_id),
        "TEXT",
      );
      await tx`
        WITH part AS (
          DELETE FROM key_spend_shards p USING api_keys k
          WHERE p.shard = ${shard} AND p.key_id = k.id AND k.account_id = ANY(${folded})
          RETURNING p.*
        )
        UPDATE api_keys k SET spent_total = k.spent_total + part.spent_total,
          spent_today = spend_today(k.spent_today, k.spent_day, part.spent_today, part.spent_day),
          spent_day = GREATEST(k.spent_day, part.spent_day), last_used_at = GREATEST(k.last_used_at, part.last_used_at)
        FROM part WHERE k.id = part.key_id`;
    }
    await tx`DELETE FROM credit_shards s USING unnest(${accounts}, ${numbers}) AS f (account_id, shard)
             WHERE s.account_id = f.account_id AND s.shard = f.shard`;
    return shards.length;
  });
}
