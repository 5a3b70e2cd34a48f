// The Ledger port on PostgreSQL, with group commit per process, under the same contract as SQLite's
// (packages/store-sqlite/src/ledger/sqlite-ledger.ts). A commit's cost is mostly its round trips and
// its WAL flush, so the debits that arrive while one batch is being written wait in a queue and go
// together in the next transaction: a few reads sent together (batch-reads.ts), then one statement that
// inserts the usage rows and updates the balances and the keys' spend (batch-write.ts), with the COMMIT
// sent right behind it (pipelined-commit.ts). No promise settles before the COMMIT that holds its debit, so a response
// never reports a charge the ledger does not have.
//
// Many processes share the database: a batch spends from this ledger's own credit shard, locked before
// the batch reads what it decides on, and locks an account's row only to fill the shard up
// (credit-shards.ts), so the batches of different processes do not take turns on the account. A debit
// that the shard and the row cannot cover while other shards hold enough credits goes to a batch that
// locks all of the account's shards: it is refused only when the whole balance is short. The CHECK
// (credits >= 0, balance >= 0) still guards every row.
import type { DebitResult, KeyCheck, Ledger, UsageRecord } from "@social/core";
import { decideDebit, duplicateRequest, GRANT_REASONS, LedgerError, refunded } from "@social/core";
import {
  type AskedDebit,
  idempotencyHolderOf,
  KEY_CHECK_COLUMNS,
  KeyCache,
  type KeyRowOf,
  type KeySpendRowOf,
  keySpendOf,
} from "@social/store-common";
import type { ReservedSQL } from "bun";
import { SQL } from "bun";
import { isDatabaseOutage } from "../outage.ts";
import { type BatchMode, ownerKey, readBatch } from "./batch-reads.ts";
import { batchWrite } from "./batch-write.ts";
import { ACCOUNT_BALANCE, foldIdleShards, newShardNumber } from "./credit-shards.ts";
import { listenForKeyChanges } from "./key-changes.ts";
import { committedBehind, type PipelinedWork } from "./pipelined-commit.ts";
import { type TransactionStatus, UnsettledDebits } from "./unsettled.ts";

/** Bounds how long one transaction holds its accounts' locks, however long the queue grows. */
const MAX_BATCH = 512;

export interface PostgresLedgerOptions {
  /** The clock that stamps usage rows and key use; tests pin it. */
  now?: () => number;
  /** How long a credit shard stays unused before this ledger folds it back into its account's row. */
  foldIdleAfterMs?: number;
}

/** A shard idle this long is folded back: its process has likely gone (credit-shards.ts). */
const FOLD_IDLE_AFTER_MS = 10 * 60_000;
/** How often each ledger looks for idle shards. */
const FOLD_EVERY_MS = 60_000;

interface PendingDebit {
  accountId: string;
  usage: UsageRecord;
  /** What the key cache needs of it once it is settled. */
  asked: AskedDebit;
  resolve: (result: DebitResult) => void;
  reject: (error: unknown) => void;
}

/** Deferred: a debit this ledger's shard and the account's row cannot cover while other shards might. */
type Outcome = { result: DebitResult } | { error: LedgerError } | { deferred: true };

/**
 * What a batch learned before it failed: its transaction id, once the server has assigned it, and the
 * debits its write charges, once decided (a debit it refused, a duplicate request id among them, is no
 * charge of this transaction to take back).
 */
interface BatchAttempt {
  xid?: string | undefined;
  charges?: { accountId: string; requestId: string }[];
}

type KeyRow = KeyRowOf<string>;

export class PostgresLedger implements Ledger {
  readonly #sql: SQL;
  readonly #now: () => number;
  #queue: PendingDebit[] = [];
  /** A batch is being written or about to be: new debits wait for the next one. */
  #draining = false;
  readonly #keys: KeyCache;
  /** This ledger's credit shard (credit-shards.ts). */
  readonly #shard = newShardNumber();
  readonly #foldIdleAfterMs: number;
  readonly #folding: ReturnType<typeof setInterval>;
  readonly #unsettled = new UnsettledDebits(
    (xid) => this.#transactionStatus(xid),
    ({ accountId, requestId }) => this.#refundUsage(accountId, requestId),
    isDatabaseOutage,
  );

  constructor(sql: SQL, options: PostgresLedgerOptions = {}) {
    this.#sql = sql;
    this.#now = options.now ?? Date.now;
    this.#keys = new KeyCache(Date.now);
    // Without the subscription every check reads the database, which is slower but never wrong.
    listenForKeyChanges(sql, this.#keys).catch(() => {});
    this.#foldIdleAfterMs = options.foldIdleAfterMs ?? FOLD_IDLE_AFTER_MS;
    // A fold that fails (an outage) is tried again next time; credits in an idle shard count all along.
    this.#folding = setInterval(() => void this.foldIdleShards().catch(() => {}), FOLD_EVERY_MS);
    this.#folding.unref?.();
  }

  /** Moves idle credit shards (of any process) back into their accounts' rows; returns how many. */
  foldIdleShards(): Promise<number> {
    return foldIdleShards(this.#sql, this.#now() - this.#foldIdleAfterMs);
  }

  /** Stops folding idle shards: the pool is about to close. */
  close(): void {
    clearInterval(this.#folding);
  }

  /**
   * This process changed an account's keys or raised its balance: its cached key checks go now, not
   * when the database's notification arrives, so a key revoked here is refused by the next request.
   */
  keysChanged(accountId: string): void {
    this.#keys.changed(accountId);
  }

  async checkKey(keyHash: string): Promise<KeyCheck> {
    return this.#keys.check(keyHash, this.#now(), async () => {
      const [row] = await this.#sql<KeyRow[]>`
        SELECT ${this.#sql.unsafe(KEY_CHECK_COLUMNS)}, ${this.#sql.unsafe(ACCOUNT_BALANCE)} AS balance
        FROM api_key_totals k JOIN accounts a ON a.id = k.account_id WHERE k.hash = ${keyHash}`;
      return row;
    });
  }

  async balance(accountId: string): Promise<number> {
    const [row] = await this.#sql<{ balance: string }[]>`
      SELECT ${this.#sql.unsafe(ACCOUNT_BALANCE)} AS balance FROM accounts a WHERE a.id = ${accountId}`;
    if (!row) throw new LedgerError("unknown_account", `no account ${accountId}`);
    return Number(row.balance);
  }

  /**
   * Charges `usage.credits` if the balance covers them, else refuses and writes nothing. Rejects with
   * a LedgerError for an invalid amount, an unknown account or key, or a request id already charged
   * (all uncharged; see decideDebit), and with the database error if the transaction fails (nothing
   * charged).
   */
  debit(accountId: string, usage: UsageRecord): Promise<DebitResult> {
    return new Promise((resolve, reject) => {
      const asked = this.#keys.asked(usage.keyId, usage.credits, this.#now());
      this.#queue.push({ accountId, usage, asked, resolve, reject });
      if (!this.#draining) {
        this.#draining = true;
        // A macrotask, not a microtask: requests whose I/O completed in the same event-loop turn
        // join the first batch too, not only the debits issued by one synchronous run.
        setImmediate(() => void this.#drain());
      }
    });
  }

  /** A transaction of its own, which needs no batch: refunds are rare (answers nobody received). */
  async refund(accountId: string, requestId: string): Promise<void> {
    await this.#refundUsage(accountId, requestId);
  }

  async #transactionStatus(xid: string): Promise<TransactionStatus> {
    const [row] = await this.#sql<{ status: TransactionStatus | null }[]>`
      SELECT txid_status(${xid}::bigint) AS status`;
    // Null: too old for the server to remember, so long over; a refund settles either outcome.
    return row?.status ?? "committed";
  }

  /**
   * The grant takes its amount from the usage row itself (a refund never exceeds the charge), and the
   * unique index on refund_of makes a second refund a no-op: a concurrent one waits for the account's
   * lock, then inserts nothing. The charge stops counting against its key's limit in the same commit,
   * as core's `refunded` says on the key's whole spend, read with its row locked; the change goes to
   * the key's row, whichever shard's part recorded the charge (parts only grow meanwhile, so the spend
   * never goes below zero). It waits for its locks however long another session holds them (a serving
   * pool bounds other statements' waits): a refund given up would leave a customer charged for an
   * answer never received.
   */
  async #refundUsage(accountId: string, requestId: string): Promise<void> {
    const now = this.#now();
    await this.#sql.begin(async (tx) => {
      await tx`SET LOCAL lock_timeout = 0`;
      const [account] = await tx`SELECT id FROM accounts WHERE id = ${accountId} FOR NO KEY UPDATE`;
      if (!account) throw new LedgerError("unknown_account", `no account ${accountId}`);
      const [charge] = await tx<{ key_id: string; credits: string; created_at: string }[]>`
        SELECT key_id, credits, created_at FROM usage
        WHERE request_id = ${requestId} AND account_id = ${accountId} AND credits > 0`;
      if (!charge) return;
      const [refund] = await tx`
        INSERT INTO grants (account_id, credits, reason, created_at, refund_of)
        VALUES (${accountId}, ${charge.credits}, ${GRANT_REASONS.refund}, ${now}, ${requestId})
        ON CONFLICT DO NOTHING RETURNING id`;
      if (!refund) return;
      const credits = Number(charge.credits);
      const [, , [key]] = await Promise.all([
        tx`UPDATE accounts SET balance = balance + ${credits} WHERE id = ${accountId}`,
        tx`SELECT id FROM api_keys WHERE id = ${charge.key_id} FOR NO KEY UPDATE`,
        tx<(KeySpendRowOf<string> & { id: string })[]>`
          SELECT id, credit_limit, limit_per, expires_at, spent_total, spent_today, spent_day
          FROM api_key_totals WHERE id = ${charge.key_id}`,
      ]);
      if (!key) return;
      const spend = keySpendOf(key);
      const after = refunded(spend, credits, Number(charge.created_at));
      await tx`UPDATE api_keys SET spent_total = spent_total + ${after.total - spend.total},
                 spent_today = spend_today(spent_today, spent_day, ${after.today - spend.today}::bigint, ${spend.day}::bigint),
                 spent_day = GREATEST(spent_day, ${spend.day}::bigint)
               WHERE id = ${key.id}`;
    });
    // Credits came back and the key's spend went down: this process's checks of the account go now,
    // not when the notification arrives, as a client retrying the lost answer asks at once.
    this.#keys.changed(accountId);
  }

  /** Writes the queue batch after batch, one transaction at a time, until it is empty. */
  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      await this.#settle(this.#queue.splice(0, MAX_BATCH));
    }
    this.#draining = false;
  }

  /**
   * Writes one batch and settles its promises; never throws. A batch whose transaction fails for a
   * reason other than an outage (a value the server refuses, a request id another process charged in
   * the meantime, a deadlock) is written again one debit per transaction, so that only the debit at
   * fault fails and the others are neither lost nor charged twice.
   */
  async #settle(batch: PendingDebit[], mode: BatchMode = "own"): Promise<void> {
    const attempt: BatchAttempt = {};
    let outcomes: Outcome[];
    try {
      outcomes = await committedBehind(this.#sql, (tx) => this.#writeBatch(tx, batch, attempt, mode));
    } catch (error) {
      // The server refused a statement (it says why with a SQLSTATE): nothing was committed, and
      // written one by one, only the debit at fault fails.
      if (!isDatabaseOutage(error) && hasSqlState(error)) {
        if (batch.length > 1) for (const debit of batch) await this.#settle([debit], mode);
        else for (const debit of batch) debit.reject(refusedUsage(error, debit.usage));
        return;
      }
      // The connection failed: the batch may have committed, unheard. Its debits are answered as
      // uncharged, and whatever the server did with its charges is taken back once it is known.
      if (attempt.xid !== undefined && attempt.charges !== undefined && attempt.charges.length > 0) {
        this.#unsettled.add(attempt.xid, attempt.charges);
      }
      for (const debit of batch) debit.reject(error);
      return;
    }
    const deferred: PendingDebit[] = [];
    batch.forEach((debit, index) => {
      const outcome = outcomes[index];
      if (outcome && "deferred" in outcome) {
        deferred.push(debit);
      } else if (outcome && "result" in outcome) {
        this.#keys.debited(debit.accountId, outcome.result, debit.asked);
        debit.resolve(outcome.result);
      } else {
        debit.reject(outcome?.error);
      }
    });
    if (deferred.length > 0) await this.#settle(deferred, "whole");
  }

  /**
   * Applies the batch in queue order inside one transaction, each debit as decideDebit decides it on
   * the rows read under the batch's locks and the charges decided before it in the batch. `own` spends
   * from this ledger's shards (filled from the accounts' rows when short): a debit they cannot cover
   * while other shards hold enough credits is deferred, with the account's debits after it, to a batch
   * that locks the accounts `whole`.
   */
  async #writeBatch(
    tx: ReservedSQL,
    batch: readonly PendingDebit[],
    attempt: BatchAttempt,
    mode: BatchMode,
  ): Promise<PipelinedWork<Outcome[]>> {
    const now = this.#now();
    const shard = this.#shard;
    const { xid, held, accounts, keys, chargedIds, owners } = await readBatch(tx, batch, { mode, shard, now });
    attempt.xid = xid;
    const spent = new Map<string, number>();
    const inserted: { accountId: string; usage: UsageRecord }[] = [];
    // Accounts with a debit deferred: their later debits follow it, so that they keep their order.
    const deferring = new Set<string>();

    const outcomes = batch.map((debit): Outcome => {
      const { accountId, usage } = debit;
      if (deferring.has(accountId)) return { deferred: true };
      const idempotencyKey = usage.idempotencyKey;
      const outside = held.get(accountId)?.outside ?? 0;
      const facts = {
        account: accounts.get(accountId),
        key: keys.get(usage.keyId),
        alreadyCharged: chargedIds.has(usage.requestId),
        idempotencyHolder:
          idempotencyKey === undefined
            ? undefined
            : idempotencyHolderOf(owners.get(ownerKey(accountId, idempotencyKey))),
      };
      const decision = decideDebit(debit, facts, now);
      if ("result" in decision && decision.result.reason === "balance" && outside > 0) {
        const balance = decision.result.remaining + outside;
        if (balance >= usage.credits) {
          deferring.add(accountId);
          return { deferred: true };
        }
        // Short on the whole balance too: refused as the whole balance decides (it may be the key's
        // limit that leaves less); a refusal changes nothing.
        const refusal = decideDebit(debit, { ...facts, account: { balance } }, now);
        return "result" in refusal ? refusal : { result: { ...decision.result, remaining: balance } };
      }
      if (!("charge" in decision)) return decision;
      const { account, key, remaining, spend } = decision.charge;
      account.balance = remaining;
      key.spend = spend;
      chargedIds.add(usage.requestId);
      spent.set(usage.keyId, (spent.get(usage.keyId) ?? 0) + usage.credits);
      inserted.push({ accountId, usage });
      return { result: { ok: true, remaining: remaining + outside } };
    });

    const write = batchWrite(tx, { mode, shard, now, held, accounts, inserted, spent });
    attempt.charges = inserted.map(({ accountId, usage }) => ({ accountId, requestId: usage.requestId }));
    return { result: outcomes, write };
  }
}

/** Whether the server itself refused a statement: its error carries a SQLSTATE. */
function hasSqlState(error: unknown): boolean {
  return error instanceof SQL.PostgresError && error.errno !== undefined;
}

/** A lone debit's failure: a row the server refused is a LedgerError, anything else passes. */
function refusedUsage(error: unknown, usage: UsageRecord): unknown {
  if (!(error instanceof SQL.PostgresError) || error.errno === undefined) return error;
  // Another process charged the same request id between this batch's check and its insert.
  if (error.errno === "23505") return duplicateRequest(usage);
  // Integrity (23) and data (22) errors: a value the server refuses, such as a NUL character.
  if (error.errno.startsWith("23") || error.errno.startsWith("22"))
    return new LedgerError("invalid_usage", error.message);
  return error;
}
