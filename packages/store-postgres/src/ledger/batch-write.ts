// The one statement that writes a ledger batch (postgres-ledger.ts), sent with the COMMIT right behind
// it: the usage rows, the moves between the locked shards and rows, and the keys' spend.
import { type DebitAccount, type UsageRecord, utcDayOf } from "@social/core";
import type { ReservedSQL } from "bun";
import { type BatchMode, creditsIn, type HeldCredits } from "./batch-reads.ts";
import { refillOf } from "./credit-shards.ts";

export interface BatchCharges {
  mode: BatchMode;
  /** This ledger's shard. */
  shard: number;
  now: number;
  /** What the batch held of each account, as read. */
  held: ReadonlyMap<string, HeldCredits>;
  /** Each account's balance after the batch's charges. */
  accounts: ReadonlyMap<string, DebitAccount>;
  inserted: readonly { accountId: string; usage: UsageRecord }[];
  /** Credits charged per key. */
  spent: ReadonlyMap<string, number>;
}

/** The batch's write, not started (queries are lazy). */
export function batchWrite(tx: ReservedSQL, { mode, shard, now, held, accounts, inserted, spent }: BatchCharges) {
  // How each locked row changes: a shard spends first and takes from its row only what it lacks and a
  // share of the rest; locked whole, the row takes all of its shards' credits back.
  const shardChanges: { accountId: string; shard: number; credits: number }[] = [];
  const mainChanges: { accountId: string; credits: number }[] = [];
  for (const [accountId, account] of held) {
    const debited = creditsIn(account) - (accounts.get(accountId)?.balance ?? creditsIn(account));
    const inShards = account.shards.reduce((sum, part) => sum + part.credits, 0);
    if (mode === "whole") {
      for (const part of account.shards) shardChanges.push({ accountId, shard: part.shard, credits: -part.credits });
      mainChanges.push({ accountId, credits: inShards - debited });
    } else if (account.shards.length > 0) {
      const take = account.main === undefined ? 0 : refillOf(inShards, account.main, debited);
      shardChanges.push({ accountId, shard, credits: take - debited });
      if (account.main !== undefined) mainChanges.push({ accountId, credits: -take });
    }
  }

  // One statement, so that the COMMIT sent behind it commits the whole batch or none of it: the usage
  // rows, the locked shards and rows, changed by what the batch moved (their CHECKs refuse a row
  // below zero, and the failed cast, naming why, fails the transaction should one not be written,
  // which their locks make unreachable), and each key's spend added to its part for this ledger's
  // shard. Only this ledger's shard counts as used: the others a whole batch empties stay idle, to be
  // folded. An empty array writes nothing; -1 stands for a duration not measured, as an INT8 array
  // holds no nulls here.
  const text = (values: string[]) => tx.array(values, "TEXT");
  const int8 = (values: number[]) => tx.array(values, "INT8");
  const spentKeys = [...spent.keys()];
  const expected = shardChanges.length + mainChanges.length;
  return tx`
      WITH used AS (
        INSERT INTO usage (request_id, key_id, account_id, endpoint, credits, created_at, duration_ms, call)
        SELECT request_id, key_id, account_id, endpoint, credits, ${now}::bigint, nullif(duration_ms, -1), nullif(call, '')
        FROM unnest(
          ${text(inserted.map((row) => row.usage.requestId))}, ${text(inserted.map((row) => row.usage.keyId))},
          ${text(inserted.map((row) => row.accountId))}, ${text(inserted.map((row) => row.usage.endpoint))},
          ${int8(inserted.map((row) => row.usage.credits))},
          ${int8(inserted.map((row) => row.usage.durationMs ?? -1))},
          ${text(inserted.map((row) => row.usage.call ?? ""))}
        ) AS u (request_id, key_id, account_id, endpoint, credits, duration_ms, call)
      ), shards AS (
        UPDATE credit_shards c SET credits = c.credits + v.credits,
          used_at = CASE WHEN c.shard = ${shard} THEN ${now}::bigint ELSE c.used_at END
        FROM unnest(${text(shardChanges.map((row) => row.accountId))}, ${tx.array(
          shardChanges.map((row) => row.shard),
          "INT4",
        )}, ${int8(shardChanges.map((row) => row.credits))}) AS v (account_id, shard, credits)
        WHERE c.account_id = v.account_id AND c.shard = v.shard RETURNING 1
      ), mains AS (
        UPDATE accounts a SET balance = a.balance + v.credits
        FROM unnest(${text(mainChanges.map((row) => row.accountId))}, ${int8(mainChanges.map((row) => row.credits))}) AS v (id, credits)
        WHERE a.id = v.id RETURNING 1
      ), spent AS (
        INSERT INTO key_spend_shards AS p (key_id, shard, spent_total, spent_today, spent_day, last_used_at)
        SELECT id, ${shard}::int, credits, credits, ${utcDayOf(now)}::bigint, ${now}::bigint
        FROM unnest(${text(spentKeys)}, ${int8(spentKeys.map((id) => spent.get(id) ?? 0))}) AS s (id, credits)
        ON CONFLICT (key_id, shard) DO UPDATE SET spent_total = p.spent_total + excluded.spent_total,
          spent_today = spend_today(p.spent_today, p.spent_day, excluded.spent_today, excluded.spent_day),
          spent_day = GREATEST(p.spent_day, excluded.spent_day), last_used_at = excluded.last_used_at
      )
      SELECT CASE WHEN (SELECT count(*) FROM shards) + (SELECT count(*) FROM mains) = ${expected} THEN 1
        -- Built from the count, so that the planner cannot fold the failing cast ahead of the CASE.
        ELSE ('a locked row was not written: wrote ' || ((SELECT count(*) FROM shards) + (SELECT count(*) FROM mains)))::int
        END AS checked`;
}
