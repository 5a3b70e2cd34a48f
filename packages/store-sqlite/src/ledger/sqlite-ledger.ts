// The Ledger port on bun:sqlite, with group commit (../group-commit.ts): the debits of all requests that
// arrive together share one BEGIN IMMEDIATE … COMMIT, and no promise settles before the COMMIT that
// holds its debit, so a response never reports a charge the ledger does not have.
import { type Database, SQLiteError, type Statement } from "bun:sqlite";
import type { DebitAccount, DebitKey, DebitResult, KeyCheck, Ledger, UsageRecord } from "@social/core";
import { decideDebit, duplicateRequest, GRANT_REASONS, LedgerError, refunded } from "@social/core";
import {
  idempotencyHolderOf,
  KEY_CHECK_COLUMNS,
  KeyCache,
  type KeyRowOf,
  type KeySpendRowOf,
  keySpendOf,
} from "@social/store-common";
import { WalSyncError } from "../durability/wal-sync.ts";
import { GroupCommit, type Outcome } from "../group-commit.ts";
import { KeyChanges } from "./key-changes.ts";

export interface SqliteLedgerOptions {
  /** The clock that stamps usage rows and key use; tests pin it. */
  now?: () => number;
}

/** A queued change: a debit with its usage row, or the refund of an earlier debit. */
interface PendingDebit {
  accountId: string;
  usage: UsageRecord;
  /** Set for a refund: the charge of `usage.requestId` is given back instead of a new one made. */
  refund?: true;
}

/** An account as a batch found it (`start`), its balance as the batch's debits and refunds leave it. */
interface BatchAccount extends DebitAccount {
  start: number;
}
/** null: no such account. */
type BatchAccounts = Map<string, BatchAccount | null>;

/** A key as a batch found it, its spend as the batch's charges and refunds leave it. */
interface BatchKey extends DebitKey {
  /** A debit used it (its last_used_at moves); refunds alone only change its spend. */
  used: boolean;
  changed: boolean;
}
/** null: no such key. */
type BatchKeys = Map<string, BatchKey | null>;

type KeyRow = KeyRowOf<number>;
type KeyDebitRow = KeySpendRowOf<number> & { revoked_at: number | null };

export class SqliteLedger implements Ledger {
  readonly #now: () => number;
  readonly #writes: GroupCommit<PendingDebit, DebitResult>;

  readonly #keys = new KeyCache(Date.now);
  readonly #keyChanges: KeyChanges;
  readonly #keyByHash: Statement<KeyRow, [string]>;
  readonly #balance: Statement<{ balance: number }, [string]>;
  readonly #setBalance: Statement<void, [number, string]>;
  readonly #recordUsage: Statement<
    void,
    [string, string, string, string, number, number, number | null, string | null]
  >;
  readonly #writeKey: Statement<void, [number | null, number, number, number | null, string]>;
  readonly #keyForDebit: Statement<KeyDebitRow, [string]>;
  readonly #usageOf: Statement<{ key_id: string; created_at: number }, [string, string]>;
  readonly #refundUsage: Statement<{ credits: number }, [string, number, string, string]>;
  readonly #idempotencyOwner: Statement<{ request_id: string; answered: number }, [string, string]>;

  constructor(db: Database, options: SqliteLedgerOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#writes = new GroupCommit(db, (batch) => this.#applyBatch(batch));
    this.#keyChanges = new KeyChanges(db);
    this.#keyByHash = db.query<KeyRow, [string]>(
      `SELECT ${KEY_CHECK_COLUMNS}, a.balance FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = ?`,
    );
    this.#balance = db.query("SELECT balance FROM accounts WHERE id = ?");
    this.#setBalance = db.query("UPDATE accounts SET balance = ? WHERE id = ?");
    this.#recordUsage = db.query(
      "INSERT INTO usage (request_id, key_id, account_id, endpoint, credits, created_at, duration_ms, call) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    );
    this.#writeKey = db.query(
      "UPDATE api_keys SET last_used_at = coalesce(?, last_used_at), spent_total = ?, spent_today = ?, spent_day = ? WHERE id = ?",
    );
    this.#keyForDebit = db.query(
      "SELECT revoked_at, expires_at, credit_limit, limit_per, spent_total, spent_today, spent_day FROM api_keys WHERE id = ?",
    );
    this.#usageOf = db.query("SELECT key_id, created_at FROM usage WHERE request_id = ? AND account_id = ?");
    // The grant takes its amount from the usage row itself, so a refund can never exceed the charge,
    // and the unique index on refund_of makes a second refund of the same request a no-op.
    this.#refundUsage = db.query(
      "INSERT INTO grants (account_id, credits, reason, created_at, refund_of) " +
        "SELECT account_id, credits, ?, ?, request_id FROM usage " +
        "WHERE request_id = ? AND account_id = ? AND credits > 0 ON CONFLICT DO NOTHING RETURNING credits",
    );
    this.#idempotencyOwner = db.query(
      "SELECT request_id, answer IS NOT NULL AS answered FROM idempotency WHERE account_id = ? AND key = ?",
    );
  }

  async checkKey(keyHash: string): Promise<KeyCheck> {
    if (this.#keyChanges.moved()) this.#keys.startOver();
    return this.#keys.check(keyHash, this.#now(), () => this.#keyByHash.get(keyHash));
  }

  async balance(accountId: string): Promise<number> {
    const row = this.#balance.get(accountId);
    if (!row) throw new LedgerError("unknown_account", `no account ${accountId}`);
    return row.balance;
  }

  /**
   * Charges `usage.credits` if the balance covers them, else refuses and writes nothing. Rejects with
   * a LedgerError for an invalid amount, an unknown account or key, or a request id already charged
   * (all uncharged; see decideDebit), and with the database error if the batch's transaction fails
   * (nothing charged).
   */
  debit(accountId: string, usage: UsageRecord): Promise<DebitResult> {
    const asked = this.#keys.asked(usage.keyId, usage.credits, this.#now());
    const debited = (result: DebitResult) => {
      this.#keys.debited(accountId, result, asked);
      return result;
    };
    return this.#writes.submit({ accountId, usage }).then(debited, (error: unknown) => {
      // Committed but perhaps not on disk, and answered 503: the charge is given back, as for a
      // request whose answer was not delivered (a refund of a debit that was refused finds nothing).
      if (error instanceof WalSyncError) {
        this.refund(accountId, usage.requestId).catch((refundError: unknown) => {
          // A WalSyncError means the refund committed too, as undurable as the charge it undoes.
          if (refundError instanceof WalSyncError) return;
          console.error(
            `Error: the charge of ${usage.requestId} could not be given back after its WAL sync failed: ${refundError instanceof Error ? refundError.message : String(refundError)}`,
          );
        });
      }
      throw error;
    });
  }

  /** Queued like a debit, so it never waits on a held write lock inside SQLite either. */
  async refund(accountId: string, requestId: string): Promise<void> {
    await this.#writes.submit({ accountId, usage: { requestId, keyId: "", endpoint: "", credits: 0 }, refund: true });
  }

  /**
   * Applies the batch in queue order, inside the write transaction GroupCommit holds until COMMIT, so no
   * other connection can change a balance in between: each account's balance is read once, every debit
   * is decided and subtracted in memory, and the result is written once per account. The CHECK
   * (balance >= 0) in the schema still guards it.
   */
  #applyBatch(batch: readonly PendingDebit[]): Outcome<DebitResult>[] {
    const now = this.#now();
    const accounts: BatchAccounts = new Map();
    const keys: BatchKeys = new Map();
    const outcomes = batch.map((debit) =>
      debit.refund
        ? this.#applyRefund(debit.accountId, debit.usage.requestId, accounts, keys, now)
        : this.#applyDebit(debit, accounts, keys, now),
    );
    for (const [accountId, account] of accounts) {
      if (account && account.balance !== account.start) this.#setBalance.run(account.balance, accountId);
    }
    // One write per key per batch, however many requests the key made in it.
    for (const [keyId, key] of keys) {
      if (!key || !(key.used || key.changed)) continue;
      this.#writeKey.run(key.used ? now : null, key.spend.total, key.spend.today, key.spend.day, keyId);
    }
    return outcomes;
  }

  /** An account as this batch knows it: read once, then as its debits and refunds left it. */
  #batchAccount(accountId: string, accounts: BatchAccounts): BatchAccount | null {
    let account = accounts.get(accountId);
    if (account === undefined) {
      const row = this.#balance.get(accountId);
      account = row && { start: row.balance, balance: row.balance };
      accounts.set(accountId, account);
    }
    return account;
  }

  /** A key as this batch knows it: read once, then as its debits and refunds left it. */
  #batchKey(keyId: string, keys: BatchKeys): BatchKey | null {
    let key = keys.get(keyId);
    if (key === undefined) {
      const row = this.#keyForDebit.get(keyId);
      key = row && {
        revoked: row.revoked_at !== null,
        expiresAt: row.expires_at,
        spend: keySpendOf(row),
        used: false,
        changed: false,
      };
      keys.set(keyId, key);
    }
    return key;
  }

  /**
   * One debit, as decideDebit decides it: when charged, its usage row is inserted and only then the
   * cost subtracted, so a usage row refused by a constraint (a statement SQLite undoes whole) charges
   * nothing. Any other error aborts the whole batch.
   */
  #applyDebit(debit: PendingDebit, accounts: BatchAccounts, keys: BatchKeys, now: number): Outcome<DebitResult> {
    const { accountId, usage } = debit;
    const idempotencyKey = usage.idempotencyKey;
    const decision = decideDebit(
      debit,
      {
        account: this.#batchAccount(accountId, accounts) ?? undefined,
        key: this.#batchKey(usage.keyId, keys) ?? undefined,
        // The last thing decideDebit asks: the usage table's unique index answers it at the insert below,
        // so a debit pays no lookup for it.
        alreadyCharged: false,
        idempotencyHolder:
          idempotencyKey === undefined
            ? undefined
            : idempotencyHolderOf(this.#idempotencyOwner.get(accountId, idempotencyKey)),
      },
      now,
    );
    if (!("charge" in decision)) return decision;
    try {
      const duration = usage.durationMs ?? null;
      const call = usage.call ?? null;
      this.#recordUsage.run(
        usage.requestId,
        usage.keyId,
        accountId,
        usage.endpoint,
        usage.credits,
        now,
        duration,
        call,
      );
    } catch (error) {
      if (!(error instanceof SQLiteError) || !error.code?.startsWith("SQLITE_CONSTRAINT")) throw error;
      if (error.code === "SQLITE_CONSTRAINT_UNIQUE") return { error: duplicateRequest(usage) };
      return { error: new LedgerError("invalid_usage", error.message) };
    }
    const { account, key, remaining, spend } = decision.charge;
    account.balance = remaining;
    key.spend = spend;
    key.used = true;
    return { result: { ok: true, remaining } };
  }

  /** The refund of an earlier charge: its credits back to the account, and off its key's spend. */
  #applyRefund(
    accountId: string,
    requestId: string,
    accounts: BatchAccounts,
    keys: BatchKeys,
    now: number,
  ): Outcome<DebitResult> {
    const account = this.#batchAccount(accountId, accounts);
    if (!account) return { error: new LedgerError("unknown_account", `no account ${accountId}`) };
    const charge = this.#usageOf.get(requestId, accountId);
    const credits = this.#refundUsage.get(GRANT_REASONS.refund, now, requestId, accountId)?.credits ?? 0;
    const key = charge && credits > 0 ? this.#batchKey(charge.key_id, keys) : null;
    if (charge && key) {
      key.spend = refunded(key.spend, credits, charge.created_at);
      key.changed = true;
    }
    account.balance += credits;
    return { result: { ok: true, remaining: account.balance } };
  }
}
