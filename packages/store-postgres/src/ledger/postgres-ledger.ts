// The Ledger port on PostgreSQL, with group commit per process, under the same contract as SQLite's
// (packages/store-sqlite/src/ledger/sqlite-ledger.ts). A commit's cost is mostly its round trips and
// its WAL flush, so the debits that arrive while one batch is being written wait in a queue and go
// together in the next transaction: one locked read of the accounts, then one statement that inserts
// the usage rows and updates the balances and the keys' spend, with the COMMIT sent right behind it
// (pipelined-commit.ts). No promise settles before the COMMIT that holds its debit, so a response
// never reports a charge the ledger does not have.
//
// Many processes share the database: a batch locks its accounts (in id order, so two batches never
// deadlock on them) before reading the balances, so the balances it tests debits against stay true
// until it commits. The conditional UPDATE and the CHECK (balance >= 0) still guard every balance.
import type { DebitAccount, DebitKey, DebitResult, KeyCheck, Ledger, UsageRecord } from "@social/core";
import { decideDebit, duplicateRequest, GRANT_REASONS, LedgerError, refunded } from "@social/core";
import {
  type IdempotencyOwnerRow,
  idempotencyHolderOf,
  isKeyDigest,
  KEY_CHECK_COLUMNS,
  type KeyRowOf,
  type KeySpendRowOf,
  keyCheckOf,
  keySpendOf,
} from "@social/store-common";
import type { ReservedSQL } from "bun";
import { SQL } from "bun";
import { isDatabaseOutage } from "../outage.ts";
import { KeyCache } from "./key-cache.ts";
import { committedBehind, type PipelinedWork } from "./pipelined-commit.ts";
import { type TransactionStatus, UnsettledDebits } from "./unsettled.ts";

/** Bounds how long one transaction holds its accounts' locks, however long the queue grows. */
const MAX_BATCH = 512;

export interface PostgresLedgerOptions {
  /** The clock that stamps usage rows and key use; tests pin it. */
  now?: () => number;
}

interface PendingDebit {
  accountId: string;
  usage: UsageRecord;
  resolve: (result: DebitResult) => void;
  reject: (error: unknown) => void;
}

type Outcome = { result: DebitResult } | { error: LedgerError };

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
    this.#keys.listen(sql).catch(() => {});
  }

  /**
   * This process changed an account's keys or raised its balance: its cached key checks go now, not
   * when the database's notification arrives, so a key revoked here is refused by the next request.
   */
  keysChanged(accountId: string): void {
    this.#keys.changed(accountId);
  }

  async checkKey(keyHash: string): Promise<KeyCheck> {
    if (!isKeyDigest(keyHash)) return { status: "unknown" };
    const cached = this.#keys.get(keyHash);
    if (cached !== undefined) return cached;
    const version = this.#keys.version;
    const check = await this.#readKey(keyHash);
    this.#keys.remember(keyHash, check, version);
    return check;
  }

  async #readKey(keyHash: string): Promise<KeyCheck> {
    const [row] = await this.#sql<KeyRow[]>`
      SELECT ${this.#sql.unsafe(KEY_CHECK_COLUMNS)}, a.balance
      FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = ${keyHash}`;
    return keyCheckOf(row, keyHash, this.#now());
  }

  async balance(accountId: string): Promise<number> {
    const [row] = await this.#sql<{ balance: string }[]>`SELECT balance FROM accounts WHERE id = ${accountId}`;
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
      this.#queue.push({ accountId, usage, resolve, reject });
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
   * lock, then inserts nothing. The charge stops counting against its key's limit in the same commit.
   * It waits for its locks however long another session holds them (a serving pool bounds other
   * statements' waits): a refund given up would leave a customer charged for an answer never received.
   */
  async #refundUsage(accountId: string, requestId: string): Promise<void> {
    const now = this.#now();
    await this.#sql.begin(async (tx) => {
      await tx`SET LOCAL lock_timeout = 0`;
      const [account] = await tx`SELECT id FROM accounts WHERE id = ${accountId} FOR NO KEY UPDATE`;
      if (!account) throw new LedgerError("unknown_account", `no account ${accountId}`);
      const [refund] = await tx<{ credits: string }[]>`
        INSERT INTO grants (account_id, credits, reason, created_at, refund_of)
        SELECT account_id, credits, ${GRANT_REASONS.refund}::text, ${now}::bigint, request_id FROM usage
        WHERE request_id = ${requestId} AND account_id = ${accountId} AND credits > 0
        ON CONFLICT DO NOTHING RETURNING credits`;
      if (!refund) return;
      const credits = Number(refund.credits);
      const [[key]] = await Promise.all([
        tx<(KeySpendRowOf<string> & { id: string; charged_at: string })[]>`
          SELECT k.id, u.created_at AS charged_at, k.credit_limit, k.limit_per, k.expires_at,
                 k.spent_total, k.spent_today, k.spent_day
          FROM usage u JOIN api_keys k ON k.id = u.key_id WHERE u.request_id = ${requestId} FOR NO KEY UPDATE OF k`,
        tx`UPDATE accounts SET balance = balance + ${credits} WHERE id = ${accountId}`,
      ]);
      if (!key) return;
      const spend = refunded(keySpendOf(key), credits, Number(key.charged_at));
      await tx`UPDATE api_keys SET spent_total = ${spend.total}, spent_today = ${spend.today} WHERE id = ${key.id}`;
    });
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
  async #settle(batch: PendingDebit[]): Promise<void> {
    const attempt: BatchAttempt = {};
    const version = this.#keys.version;
    let outcomes: Outcome[];
    try {
      outcomes = await committedBehind(this.#sql, (tx) => this.#writeBatch(tx, batch, attempt));
    } catch (error) {
      // The server refused a statement (it says why with a SQLSTATE): nothing was committed, and
      // written one by one, only the debit at fault fails.
      if (!isDatabaseOutage(error) && hasSqlState(error)) {
        if (batch.length > 1) for (const debit of batch) await this.#settle([debit]);
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
    batch.forEach((debit, index) => {
      const outcome = outcomes[index];
      if (outcome && "result" in outcome) {
        this.#keys.debited(debit.accountId, outcome.result.remaining, version);
        debit.resolve(outcome.result);
      } else {
        debit.reject(outcome?.error);
      }
    });
  }

  /**
   * The owners of the Idempotency-Keys the batch's debits were sent with, locked until the batch
   * commits: a retry taking a reservation over waits for the commit, then finds the charge to give
   * back; one that took it first is seen here, and the debit it took the key from is refused.
   */
  async #idempotencyOwners(tx: ReservedSQL, batch: readonly PendingDebit[]): Promise<Map<string, IdempotencyOwnerRow>> {
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

  /**
   * Applies the batch in queue order inside one transaction, each debit as decideDebit decides it on
   * the rows read under the accounts' locks and the charges decided before it in the batch.
   */
  async #writeBatch(
    tx: ReservedSQL,
    batch: readonly PendingDebit[],
    attempt: BatchAttempt,
  ): Promise<PipelinedWork<Outcome[]>> {
    const now = this.#now();
    const accountIds = [...new Set(batch.map((debit) => debit.accountId))];
    const keyIds = [...new Set(batch.map((debit) => debit.usage.keyId))];
    const requestIds = batch.map((debit) => debit.usage.requestId);
    // Queued one after the other on the transaction's connection; the usage read starts only once
    // the accounts are locked, so it sees every charge committed by a batch that held them before.
    const [[settings], locked, alreadyCharged, keyRows] = await Promise.all([
      // A charge reported to a client must survive a crash of the server, whatever its default. Every
      // statement of a batch finds its rows by key, yet left to choose, the planner plans some anew for
      // each batch (arrays of another length): one generic plan per connection spares the server that
      // planning on every batch. Made by index whatever the statistics say: planned while the usage
      // table was new, the check for charged request ids would scan all of it on every batch, however
      // large it grew. The transaction's id is what tells later whether a batch whose connection died
      // committed.
      tx<{ xid: string }[]>`
        SELECT set_config('synchronous_commit', 'on', true), set_config('plan_cache_mode', 'force_generic_plan', true),
          set_config('enable_seqscan', 'off', true), txid_current()::text AS xid`,
      tx<{ id: string; balance: string }[]>`
        SELECT id, balance FROM accounts WHERE id = ANY(${tx.array(accountIds, "TEXT")})
        ORDER BY id FOR NO KEY UPDATE`,
      tx<{ request_id: string }[]>`
        SELECT request_id FROM usage WHERE request_id = ANY(${tx.array(requestIds, "TEXT")})`,
      tx<(KeySpendRowOf<string> & { id: string; revoked: boolean })[]>`
        SELECT id, revoked_at IS NOT NULL AS revoked, credit_limit, limit_per, expires_at, spent_total, spent_today, spent_day
        FROM api_keys WHERE id = ANY(${tx.array(keyIds, "TEXT")})`,
    ]);
    attempt.xid = settings?.xid;
    const owners = await this.#idempotencyOwners(tx, batch);
    const accounts = new Map<string, DebitAccount>(locked.map((row) => [row.id, { balance: Number(row.balance) }]));
    const chargedIds = new Set(alreadyCharged.map((row) => row.request_id));
    // Read after the accounts were locked, and every writer of a key's spend holds its account's lock.
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
    const charges = new Map<string, number>();
    const inserted: { accountId: string; usage: UsageRecord }[] = [];

    const outcomes = batch.map((debit): Outcome => {
      const { accountId, usage } = debit;
      const idempotencyKey = usage.idempotencyKey;
      const decision = decideDebit(
        debit,
        {
          account: accounts.get(accountId),
          key: keys.get(usage.keyId),
          alreadyCharged: chargedIds.has(usage.requestId),
          idempotencyHolder:
            idempotencyKey === undefined
              ? undefined
              : idempotencyHolderOf(owners.get(ownerKey(accountId, idempotencyKey))),
        },
        now,
      );
      if (!("charge" in decision)) return decision;
      const { account, key, remaining, spend } = decision.charge;
      account.balance = remaining;
      key.spend = spend;
      chargedIds.add(usage.requestId);
      charges.set(accountId, (charges.get(accountId) ?? 0) + usage.credits);
      inserted.push({ accountId, usage });
      return { result: { ok: true, remaining } };
    });

    // One statement, so that the COMMIT sent behind it commits the whole batch or none of it: the usage
    // rows, the balances (the failed cast, naming why, fails the transaction should a balance not cover
    // its debits, which its lock makes unreachable), and one write per key, locked in id order like the
    // accounts, so that batches never deadlock. An empty array writes nothing; -1 stands for a duration
    // not measured and a spend with no day, as an INT8 array holds no nulls here.
    const text = (values: string[]) => tx.array(values, "TEXT");
    const int8 = (values: number[]) => tx.array(values, "INT8");
    const debited = [...charges].filter(([, credits]) => credits > 0);
    const spentKeys = [...keys.keys()];
    const spends = [...keys.values()].map((key) => key.spend);
    const write = tx`
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
      ), debited AS (
        UPDATE accounts a SET balance = a.balance - c.credits
        FROM unnest(${text(debited.map(([id]) => id))}, ${int8(debited.map(([, credits]) => credits))}) AS c (id, credits)
        WHERE a.id = c.id AND a.balance >= c.credits RETURNING a.id
      ), spent AS (
        UPDATE api_keys k SET last_used_at = ${now}, spent_total = s.total, spent_today = s.today,
          spent_day = nullif(s.day, -1)
        FROM unnest(${text(spentKeys)}, ${int8(spends.map((spend) => spend.total))}, ${int8(spends.map((spend) => spend.today))},
          ${int8(spends.map((spend) => spend.day ?? -1))}) AS s (id, total, today, day)
        WHERE k.id = s.id
          AND k.id IN (SELECT id FROM api_keys WHERE id = ANY(${text(spentKeys)}) ORDER BY id FOR NO KEY UPDATE)
      )
      SELECT CASE WHEN (SELECT count(*) FROM debited) = ${debited.length} THEN 1
        -- Built from the count, so that the planner cannot fold the failing cast ahead of the CASE.
        ELSE ('a balance changed under the batch''s lock: debited ' || (SELECT count(*) FROM debited))::int
        END AS checked`;
    attempt.charges = inserted.map(({ accountId, usage }) => ({ accountId, requestId: usage.requestId }));
    return { result: outcomes, write };
  }
}

function ownerKey(accountId: string, idempotencyKey: string): string {
  return JSON.stringify([accountId, idempotencyKey]);
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
