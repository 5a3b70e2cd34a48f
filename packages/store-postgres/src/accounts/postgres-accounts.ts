// The Accounts port on PostgreSQL, with the same answers and refusals as SQLite's
// (packages/store-sqlite/src/ledger/sqlite-accounts.ts). SQLite serialises every writer with BEGIN
// IMMEDIATE; here many processes write at once, so each check-then-write either locks the row it
// depends on or lets a unique index decide.
import type {
  AccountDetails,
  Accounts,
  DailyUsage,
  Grant,
  KeyChanges,
  KeyInfo,
  KeyOptions,
  LoggedRefusal,
  NewKey,
  RequestLogPage,
  RequestLogQuery,
  RequestUsage,
  UsageGroup,
  UsageQuery,
} from "@social/core";
import {
  assertCredits,
  assertKeyOptions,
  balanceLimitReached,
  GRANT_REASONS,
  generateApiKey,
  isWellFormedApiKey,
  KEY_PREFIX_LENGTH,
  LedgerError,
  MAX_ACTIVE_KEYS_PER_ACCOUNT,
  MAX_BALANCE,
  newId,
  STARTING_CREDITS,
} from "@social/core";
import {
  hashApiKeySync,
  KEY_INFO_COLUMNS,
  type KeyInfoRowOf,
  keyInfoOf,
  USAGE_GROUP_COLUMN,
  type UsageGroupRowOf,
  usageGroupsOf,
} from "@social/store-common";
import type { SQL, TransactionSQL } from "bun";
import { ACCOUNT_BALANCE, lockAccountsWhole } from "../ledger/credit-shards.ts";
import { persistentSecret } from "../settings.ts";
import { countRefused, requestLogPage } from "./request-history.ts";

const DAY_MS = 86_400_000;

interface AccountRow {
  id: string;
  name: string;
  balance: string;
  created_at: string;
  oidc_issuer: string | null;
  oidc_subject: string | null;
  low_balance_warning: string | null;
}

type KeyRow = KeyInfoRowOf<string>;

/** An account as read back, its balance with its credit shards', for a query on `accounts a`. */
const ACCOUNT_COLUMNS = `a.id, a.name, ${ACCOUNT_BALANCE} AS balance, a.created_at, a.oidc_issuer, a.oidc_subject, a.low_balance_warning`;

function toAccount(row: AccountRow): AccountDetails {
  return {
    id: row.id,
    name: row.name,
    balance: Number(row.balance),
    createdAt: Number(row.created_at),
    oidcIssuer: row.oidc_issuer,
    oidcSubject: row.oidc_subject,
    lowBalanceWarning: row.low_balance_warning === null ? null : Number(row.low_balance_warning),
  };
}

async function recordGrant(tx: TransactionSQL, accountId: string, credits: number, reason: string, now: number) {
  await tx`INSERT INTO grants (account_id, credits, reason, created_at) VALUES (${accountId}, ${credits}, ${reason}, ${now})`;
}

/**
 * A key for an account with room for one more. The account row stays locked until the transaction
 * ends, so concurrent creations for one account (from any process) count and insert one after the
 * other and never both take the last place. FOR NO KEY UPDATE is the ledger's lock too: enough to
 * exclude another creation, without blocking rows that merely reference the account.
 */
async function insertKey(
  tx: TransactionSQL,
  accountId: string,
  name: string,
  options: KeyOptions = {},
): Promise<NewKey> {
  const [account] = await tx`SELECT id FROM accounts WHERE id = ${accountId} FOR NO KEY UPDATE`;
  if (!account) throw new LedgerError("unknown_account", `no account ${accountId}`);
  const [row] = await tx<{ active: string }[]>`
    SELECT count(*) AS active FROM api_keys WHERE account_id = ${accountId} AND revoked_at IS NULL`;
  const active = Number(row?.active ?? 0);
  if (active >= MAX_ACTIVE_KEYS_PER_ACCOUNT) {
    throw new LedgerError(
      "too_many_keys",
      `account ${accountId} already has ${active} active keys, the most allowed: revoke one before creating another`,
    );
  }
  const key = generateApiKey();
  const keyId = newId("key");
  const prefix = key.slice(0, KEY_PREFIX_LENGTH);
  await tx`INSERT INTO api_keys (id, account_id, name, prefix, hash, created_at, credit_limit, limit_per, expires_at)
           VALUES (${keyId}, ${accountId}, ${name}, ${prefix}, ${hashApiKeySync(key)}, ${Date.now()},
                   ${options.limit?.credits ?? null}, ${options.limit?.per ?? null}, ${options.expiresAt ?? null})`;
  return { key, keyId, prefix };
}

export interface PostgresAccountsOptions {
  /**
   * Told after an account's keys were revoked or its balance raised here, so that this process's key
   * checks (PostgresLedger.keysChanged) need not wait for the database's notification.
   */
  onKeysChanged?: (accountId: string) => void;
}

export class PostgresAccounts implements Accounts {
  readonly #sql: SQL;
  readonly #keysChanged: (accountId: string) => void;

  constructor(sql: SQL, options: PostgresAccountsOptions = {}) {
    this.#sql = sql;
    this.#keysChanged = options.onKeysChanged ?? (() => {});
  }

  async account(accountId: string): Promise<AccountDetails | undefined> {
    const [row] = await this.#sql<AccountRow[]>`
      SELECT ${this.#sql.unsafe(ACCOUNT_COLUMNS)} FROM accounts a WHERE a.id = ${accountId}`;
    return row ? toAccount(row) : undefined;
  }

  async openAccount(
    name: string,
    credits = STARTING_CREDITS,
    keyOptions: KeyOptions = {},
  ): Promise<{ account: AccountDetails; key: NewKey }> {
    assertCredits(credits, { allowZero: true });
    assertKeyOptions(keyOptions);
    // One transaction: a failure leaves neither an account without its key nor a key without its account.
    return this.#sql.begin(async (tx) => {
      const now = Date.now();
      const [row] = await tx<AccountRow[]>`
        INSERT INTO accounts (id, name, balance, created_at) VALUES (${newId("acct")}, ${name}, ${credits}, ${now})
        RETURNING id, name, balance, created_at, oidc_issuer, oidc_subject, low_balance_warning`;
      if (!row) throw new Error("INSERT … RETURNING returned no row");
      if (credits > 0) await recordGrant(tx, row.id, credits, GRANT_REASONS.starting, now);
      return { account: toAccount(row), key: await insertKey(tx, row.id, name, keyOptions) };
    });
  }

  /**
   * Concurrent first sign-ins of one identity, from any process, all insert; the unique index on the
   * identity lets one through and makes the others wait for its commit and then do nothing, so exactly
   * one account and one sign-up grant exist. The losers read the winner's account after their own
   * transaction, when its commit is visible whatever the isolation level.
   */
  async accountForIdentity(issuer: string, subject: string, name: string): Promise<AccountDetails> {
    const existing = await this.#identity(issuer, subject);
    if (existing) return existing;
    const created = await this.#sql.begin(async (tx) => {
      const now = Date.now();
      const [row] = await tx<AccountRow[]>`
        INSERT INTO accounts (id, name, balance, oidc_issuer, oidc_subject, created_at)
        VALUES (${newId("acct")}, ${name}, ${STARTING_CREDITS}, ${issuer}, ${subject}, ${now})
        ON CONFLICT (oidc_issuer, oidc_subject) WHERE oidc_issuer IS NOT NULL DO NOTHING
        RETURNING id, name, balance, created_at, oidc_issuer, oidc_subject, low_balance_warning`;
      if (row) await recordGrant(tx, row.id, STARTING_CREDITS, GRANT_REASONS.signUp, now);
      return row;
    });
    if (created) return toAccount(created);
    const winner = await this.#identity(issuer, subject);
    if (!winner) throw new Error(`the account of ${issuer} ${subject} was neither created nor found`);
    return winner;
  }

  async grantCredits(accountId: string, credits: number, reason: string = GRANT_REASONS.operator): Promise<number> {
    assertCredits(credits, { allowZero: false });
    const balance = await this.#sql.begin(async (tx) => {
      // The row locked first: no credits move from it into shards until the grant commits, so the balance
      // read next counts every credit (shards may still fall by debits: it is at most the balance).
      await tx`SELECT id FROM accounts WHERE id = ${accountId} FOR NO KEY UPDATE`;
      const [account] = await tx<{ balance: string }[]>`
        SELECT ${tx.unsafe(ACCOUNT_BALANCE)} AS balance FROM accounts a WHERE a.id = ${accountId}`;
      if (!account) throw new LedgerError("unknown_account", `no account ${accountId}`);
      const before = Number(account.balance);
      if (before > MAX_BALANCE - credits) throw balanceLimitReached(accountId, before, credits);
      await tx`UPDATE accounts SET balance = balance + ${credits} WHERE id = ${accountId}`;
      await recordGrant(tx, accountId, credits, reason, Date.now());
      return before + credits;
    });
    this.#keysChanged(accountId);
    return balance;
  }

  async createKey(accountId: string, name: string, options: KeyOptions = {}): Promise<NewKey> {
    assertKeyOptions(options);
    return this.#sql.begin((tx) => insertKey(tx, accountId, name, options));
  }

  async key(keyId: string): Promise<KeyInfo | undefined> {
    const [row] = await this.#sql<
      KeyRow[]
    >`SELECT ${this.#sql.unsafe(KEY_INFO_COLUMNS)} FROM api_key_totals WHERE id = ${keyId}`;
    return row ? keyInfoOf(row, Date.now()) : undefined;
  }

  async listKeys(accountId?: string): Promise<KeyInfo[]> {
    const columns = this.#sql.unsafe(KEY_INFO_COLUMNS);
    const rows =
      accountId === undefined
        ? await this.#sql<KeyRow[]>`SELECT ${columns} FROM api_key_totals ORDER BY created_at, seq`
        : await this.#sql<KeyRow[]>`
            SELECT ${columns} FROM api_key_totals WHERE account_id = ${accountId} ORDER BY created_at, seq`;
    const now = Date.now();
    return rows.map((row) => keyInfoOf(row, now));
  }

  /**
   * Changes an active key's name, limit and expiry; its spend stays. The account's credit shards are
   * locked first: a batch that read the key before the change, and so charged it without its new
   * limit, commits before it (credit-shards.ts).
   */
  async updateKey(keyId: string, changes: KeyChanges): Promise<KeyInfo> {
    assertKeyOptions(changes);
    const row = await this.#sql.begin(async (tx) => {
      const [key] = await tx<{ account_id: string }[]>`SELECT account_id FROM api_keys WHERE id = ${keyId}`;
      if (!key) return undefined;
      await lockAccountsWhole(tx, [key.account_id]);
      const [updated] = await tx`
        UPDATE api_keys SET name = ${changes.name}, credit_limit = ${changes.limit?.credits ?? null},
          limit_per = ${changes.limit?.per ?? null}, expires_at = ${changes.expiresAt ?? null}
        WHERE id = ${keyId} AND revoked_at IS NULL RETURNING id`;
      if (!updated) return undefined;
      const [info] = await tx<KeyRow[]>`SELECT ${tx.unsafe(KEY_INFO_COLUMNS)} FROM api_key_totals WHERE id = ${keyId}`;
      return info;
    });
    if (!row) {
      throw (await this.key(keyId))
        ? new LedgerError("revoked_key", `the key ${keyId} is revoked and cannot be changed`)
        : new LedgerError("unknown_key", `no key ${keyId}`);
    }
    this.#keysChanged(row.account_id);
    return keyInfoOf(row, Date.now());
  }

  /** Revokes the key for good. Revoking a revoked key keeps its original revocation time. */
  async revokeKey(reference: string): Promise<KeyInfo> {
    const keyId = await this.#resolveKeyId(reference);
    const [revoked] = await this.#sql`
      UPDATE api_keys SET revoked_at = coalesce(revoked_at, ${Date.now()}) WHERE id = ${keyId} RETURNING id`;
    const row = revoked ? await this.key(keyId) : undefined;
    if (!row) throw new LedgerError("unknown_key", `no key matches ${reference}`);
    this.#keysChanged(row.accountId);
    return row;
  }

  /**
   * Days are UTC days numbered as on SQLite, created_at / 86400000 in integer arithmetic (the divisor
   * is a literal, so no parameter type can turn it into a float division), and filled in here.
   */
  async dailyUsage(accountId: string, days: number): Promise<DailyUsage[]> {
    const firstDay = Math.floor(Date.now() / DAY_MS) - (days - 1);
    const rows = await this.#sql<{ day: string; requests: string; credits: string }[]>`
      SELECT created_at / 86400000 AS day, count(*) AS requests, sum(credits) AS credits
      FROM usage WHERE account_id = ${accountId} AND created_at >= ${firstDay * DAY_MS} GROUP BY day`;
    const byDay = new Map(rows.map((row) => [Number(row.day), row]));
    return Array.from({ length: days }, (_, offset) => {
      const day = firstDay + offset;
      const row = byDay.get(day);
      return {
        day: new Date(day * DAY_MS).toISOString().slice(0, 10),
        requests: Number(row?.requests ?? 0),
        credits: Number(row?.credits ?? 0),
      };
    });
  }

  async usageSummary(accountId: string, query: UsageQuery): Promise<UsageGroup[]> {
    const rows = await this.#sql<UsageGroupRowOf<string>[]>`
      SELECT ${this.#sql.unsafe(USAGE_GROUP_COLUMN[query.groupBy])} AS grouped, count(*) AS requests,
             sum(credits) AS credits
      FROM usage u WHERE account_id = ${accountId} AND created_at >= ${query.from} AND created_at < ${query.to}
        AND NOT EXISTS (SELECT 1 FROM grants g WHERE g.refund_of = u.request_id)
      GROUP BY grouped`;
    return usageGroupsOf(rows, query.groupBy);
  }

  async recentRequests(accountId: string, limit: number): Promise<RequestUsage[]> {
    const rows = await this.#sql<
      { request_id: string; key_id: string; endpoint: string; credits: string; created_at: string }[]
    >`SELECT request_id, key_id, endpoint, credits, created_at FROM usage
      WHERE account_id = ${accountId} ORDER BY created_at DESC, id DESC LIMIT ${limit}`;
    return rows.map((row) => ({
      requestId: row.request_id,
      keyId: row.key_id,
      endpoint: row.endpoint,
      credits: Number(row.credits),
      createdAt: Number(row.created_at),
    }));
  }

  async requestLog(accountId: string, query: RequestLogQuery): Promise<RequestLogPage> {
    return requestLogPage(this.#sql, accountId, query);
  }

  async countRefused(accountId: string, refusal: LoggedRefusal, since: number, atMost: number): Promise<number> {
    return countRefused(this.#sql, accountId, refusal, since, atMost);
  }

  async grants(accountId: string, limit: number): Promise<Grant[]> {
    const rows = await this.#sql<{ credits: string; reason: string; created_at: string; refund_of: string | null }[]>`
      SELECT credits, reason, created_at, refund_of FROM grants
      WHERE account_id = ${accountId} ORDER BY created_at DESC, id DESC LIMIT ${limit}`;
    return rows.map((row) => ({
      credits: Number(row.credits),
      reason: row.reason,
      createdAt: Number(row.created_at),
      refundOf: row.refund_of,
    }));
  }

  async lastTopUp(accountId: string): Promise<Grant | undefined> {
    const [row] = await this.#sql<{ credits: string; reason: string; created_at: string }[]>`
      SELECT credits, reason, created_at FROM grants WHERE account_id = ${accountId} AND refund_of IS NULL
      ORDER BY created_at DESC, id DESC LIMIT 1`;
    return (
      row && { credits: Number(row.credits), reason: row.reason, createdAt: Number(row.created_at), refundOf: null }
    );
  }

  async setLowBalanceWarning(accountId: string, credits: number | null): Promise<void> {
    if (credits !== null) assertCredits(credits, { allowZero: true });
    const changed = await this
      .#sql`UPDATE accounts SET low_balance_warning = ${credits} WHERE id = ${accountId} RETURNING id`;
    if (changed.length === 0) throw new LedgerError("unknown_account", `no account ${accountId}`);
  }

  async secret(name: string): Promise<string> {
    return persistentSecret(this.#sql, name);
  }

  async #identity(issuer: string, subject: string): Promise<AccountDetails | undefined> {
    const [row] = await this.#sql<AccountRow[]>`
      SELECT ${this.#sql.unsafe(ACCOUNT_COLUMNS)} FROM accounts a
      WHERE a.oidc_issuer = ${issuer} AND a.oidc_subject = ${subject}`;
    return row ? toAccount(row) : undefined;
  }

  /** The id of the key that `reference` names: the full key, its id (`key_…`) or its displayed prefix. */
  async #resolveKeyId(reference: string): Promise<string> {
    const rows = isWellFormedApiKey(reference)
      ? await this.#sql<{ id: string }[]>`SELECT id FROM api_keys WHERE hash = ${hashApiKeySync(reference)}`
      : reference.startsWith("key_")
        ? await this.#sql<{ id: string }[]>`SELECT id FROM api_keys WHERE id = ${reference}`
        : await this.#sql<{ id: string }[]>`SELECT id FROM api_keys WHERE prefix = ${reference}`;
    const [first, ...others] = rows;
    if (!first) throw new LedgerError("unknown_key", `no key matches ${reference}`);
    if (others.length > 0) {
      throw new LedgerError("ambiguous_key", `${rows.length} keys share the prefix ${reference}; use the key id`);
    }
    return first.id;
  }
}
