// What a ledger batch reads, and locks, before it decides its debits (postgres-ledger.ts): the credits it
// holds for each account (credit-shards.ts says which), the request ids charged already, the keys with
// their merged spend, and the holders of the Idempotency-Keys its debits were sent with.
import type { DebitAccount, DebitKey, UsageRecord } from "@social/core";
import { type IdempotencyOwnerRow, type KeySpendRowOf, keySpendOf } from "@social/store-common";
import type { ReservedSQL } from "bun";
import { lockAccountsWhole } from "./credit-shards.ts";

/** Which shards a batch spends from: this ledger's own, or all of the accounts' (`whole`). */
export type BatchMode = "own" | "whole";

/** The credits a batch holds for one account: its shards', its row's once locked. */
export interface HeldCredits {
  shards: { shard: number; credits: number }[];
  main: number | undefined;
  /** The account's credits the batch does not hold, as last read. */
  outside: number;
}

export function creditsIn(account: HeldCredits): number {
  return account.shards.reduce((sum, part) => sum + part.credits, 0) + (account.main ?? 0);
}

/** What a batch decides its debits on, read under its locks. */
export interface BatchFacts {
  /** The transaction's id: what tells later whether a batch whose connection died committed. */
  xid: string | undefined;
  held: Map<string, HeldCredits>;
  /** Each account's balance as the batch holds it, for decideDebit to lower charge by charge. */
  accounts: Map<string, DebitAccount>;
  keys: Map<string, DebitKey>;
  chargedIds: Set<string>;
  owners: Map<string, IdempotencyOwnerRow>;
}

interface ShardRow {
  account_id: string;
  shard: number;
  credits: string;
}

interface OutsideRow {
  id: string;
  balance: string;
  others: string;
}

type KeyFactsRow = KeySpendRowOf<string> & { id: string; revoked: boolean };

export function ownerKey(accountId: string, idempotencyKey: string): string {
  return JSON.stringify([accountId, idempotencyKey]);
}

/**
 * Locks what a batch of `debits` spends from and reads what it decides on. `own` locks this ledger's
 * `shard` of each account, and an account's row too when the shard is missing or short of what the
 * batch may debit; `whole` locks every shard of the accounts, then their rows.
 */
export async function readBatch(
  tx: ReservedSQL,
  debits: readonly { accountId: string; usage: UsageRecord }[],
  { mode, shard, now }: { mode: BatchMode; shard: number; now: number },
): Promise<BatchFacts> {
  const accountIds = [...new Set(debits.map((debit) => debit.accountId))];
  const keyIds = tx.array([...new Set(debits.map((debit) => debit.usage.keyId))], "TEXT");
  const requestIds = debits.map((debit) => debit.usage.requestId);
  const ids = tx.array(accountIds, "TEXT");
  const readKeys = () => tx<KeyFactsRow[]>`
      SELECT id, revoked_at IS NOT NULL AS revoked, credit_limit, limit_per, expires_at, spent_total, spent_today, spent_day
      FROM api_key_totals WHERE id = ANY(${keyIds})`;
  // A charge reported to a client must survive a crash of the server, whatever its default. Every
  // statement of a batch finds its rows by key, yet left to choose, the planner plans some anew for
  // each batch (arrays of another length): one generic plan per connection spares the server that
  // planning on every batch. Made by index whatever the statistics say: planned while the usage
  // table was new, the check for charged request ids would scan all of it on every batch, however
  // large it grew. The transaction's id is what tells later whether a batch whose connection died
  // committed. Sent first, ahead of every statement it plans.
  const settings = tx<{ xid: string }[]>`
      SELECT set_config('synchronous_commit', 'on', true), set_config('plan_cache_mode', 'force_generic_plan', true),
        set_config('enable_seqscan', 'off', true), txid_current()::text AS xid`.execute();
  // Awaited below; a failure while the whole locks are taken must not leave its rejection unheard.
  settings.catch(() => {});
  // Locked before anything is read, so that the reads see every charge committed by a batch that
  // held them before.
  const whole = mode === "whole" ? await lockAccountsWhole(tx, accountIds) : undefined;
  // Queued one after the other on the transaction's connection, the own shards' lock first.
  const [[xid], ownShards, outside, alreadyCharged, firstKeys] = await Promise.all([
    settings,
    mode === "own"
      ? tx<ShardRow[]>`
            SELECT account_id, shard, credits FROM credit_shards WHERE account_id = ANY(${ids}) AND shard = ${shard}
            ORDER BY account_id FOR NO KEY UPDATE`
      : Promise.resolve([]),
    // What the batch does not hold: the account's row and the other shards.
    mode === "own"
      ? tx<OutsideRow[]>`
            SELECT a.id, a.balance, coalesce((SELECT sum(s.credits) FROM credit_shards s
              WHERE s.account_id = a.id AND s.shard <> ${shard}), 0) AS others
            FROM accounts a WHERE a.id = ANY(${ids})`
      : Promise.resolve([]),
    tx<{ request_id: string }[]>`
        SELECT request_id FROM usage WHERE request_id = ANY(${tx.array(requestIds, "TEXT")})`,
    readKeys(),
  ]);

  // Per account: the credits the batch holds locked (its shards, and its row once locked) and what
  // it does not hold, which a charge's remaining balance counts too.
  const held = new Map<string, HeldCredits>();
  for (const row of outside) {
    held.set(row.id, { shards: [], main: undefined, outside: Number(row.balance) + Number(row.others) });
  }
  for (const row of ownShards) held.get(row.account_id)?.shards.push({ shard, credits: Number(row.credits) });
  for (const row of whole?.mains ?? []) held.set(row.id, { shards: [], main: Number(row.balance), outside: 0 });
  for (const row of whole?.shards ?? []) {
    held.get(row.account_id)?.shards.push({ shard: row.shard, credits: Number(row.credits) });
  }

  // An account whose shard is missing or short of what the batch may debit locks its row too, and
  // the keys with a limit are locked and read again after it: a limit set before the row was locked
  // is seen (credit-shards.ts).
  const asked = new Map<string, number>();
  for (const { accountId, usage } of debits) {
    asked.set(accountId, (asked.get(accountId) ?? 0) + Math.max(0, usage.credits));
  }
  const missing = mode === "own" ? accountIds.filter((id) => held.get(id)?.shards.length === 0) : [];
  const short =
    mode === "own"
      ? accountIds.filter((id) => {
          const account = held.get(id);
          return account !== undefined && creditsIn(account) < (asked.get(id) ?? 0);
        })
      : [];
  let keyRows = firstKeys;
  if (missing.length > 0 || short.length > 0 || firstKeys.some((row) => row.credit_limit !== null)) {
    const rows = [...new Set([...missing, ...short])].sort();
    const [mains, created, , others, keysAgain] = await Promise.all([
      tx<{ id: string; balance: string }[]>`
          SELECT id, balance FROM accounts WHERE id = ANY(${tx.array(rows, "TEXT")}) ORDER BY id FOR NO KEY UPDATE`,
      // Made with the account's row locked, which a change of a key's limit holds too; the upsert
      // locks a shard that exists already as well.
      tx<ShardRow[]>`
          INSERT INTO credit_shards (account_id, shard, credits, used_at)
          SELECT id, ${shard}, 0, ${now}::bigint FROM unnest(${tx.array(missing, "TEXT")}) AS m (id)
          ON CONFLICT (account_id, shard) DO UPDATE SET used_at = excluded.used_at
          RETURNING account_id, shard, credits`,
      tx`SELECT id FROM api_keys WHERE id = ANY(${keyIds}) AND credit_limit IS NOT NULL ORDER BY id FOR NO KEY UPDATE`,
      // With the rows locked, no credits move between them and other shards but by debits.
      tx<OutsideRow[]>`
          SELECT a.id, 0 AS balance, coalesce((SELECT sum(s.credits) FROM credit_shards s
            WHERE s.account_id = a.id AND s.shard <> ${shard}), 0) AS others
          FROM accounts a WHERE a.id = ANY(${tx.array(rows, "TEXT")})`,
      readKeys(),
    ]);
    for (const row of mains) {
      const account = held.get(row.id);
      if (account) account.main = Number(row.balance);
    }
    for (const row of created) held.get(row.account_id)?.shards.push({ shard, credits: Number(row.credits) });
    for (const row of others) {
      const account = held.get(row.id);
      if (account) account.outside = Number(row.others);
    }
    keyRows = keysAgain;
  }
  const owners = await idempotencyOwners(tx, debits);
  const accounts = new Map<string, DebitAccount>(
    [...held].map(([id, account]) => [id, { balance: creditsIn(account) }]),
  );
  const chargedIds = new Set(alreadyCharged.map((row) => row.request_id));
  const keys = new Map<string, DebitKey>(
    keyRows.map((row) => [
      row.id,
      {
        revoked: row.revoked,
        expiresAt: row.expires_at === null ? null : Number(row.expires_at),
        spend: keySpendOf(row),
      },
    ]),
  );
  return { xid: xid?.xid, held, accounts, keys, chargedIds, owners };
}

/**
 * The owners of the Idempotency-Keys the batch's debits were sent with, locked until the batch
 * commits: a retry taking a reservation over waits for the commit, then finds the charge to give
 * back; one that took it first is seen here, and the debit it took the key from is refused.
 */
async function idempotencyOwners(
  tx: ReservedSQL,
  batch: readonly { accountId: string; usage: UsageRecord }[],
): Promise<Map<string, IdempotencyOwnerRow>> {
  const keyed = batch.flatMap(({ accountId, usage }) =>
    usage.idempotencyKey === undefined ? [] : [{ accountId, key: usage.idempotencyKey }],
  );
  if (keyed.length === 0) return new Map();
  const rows = await tx<(IdempotencyOwnerRow & { account_id: string; key: string })[]>`
      SELECT i.account_id, i.key, i.request_id, i.answer IS NOT NULL AS answered
      FROM idempotency i
      JOIN unnest(${tx.array(
        keyed.map((entry) => entry.accountId),
        "TEXT",
      )}, ${tx.array(
        keyed.map((entry) => entry.key),
        "TEXT",
      )}) AS k (account_id, key) ON i.account_id = k.account_id AND i.key = k.key
      ORDER BY i.account_id, i.key FOR SHARE OF i`;
  return new Map(rows.map((row) => [ownerKey(row.account_id, row.key), row]));
}
