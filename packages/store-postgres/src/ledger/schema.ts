// The credit ledger's tables on PostgreSQL: the same tables, invariants and names as on SQLite
// (packages/store-sqlite/src/ledger/schema.ts), so one set of conformance tests holds for both; only
// the usage rows' key and account are checked by the ledger's batch instead of foreign keys (below).
// Credits are money: a balance can never go negative, a key is stored only as its SHA-256 digest, and a
// request id is charged at most once. Invariant kept by every writer: sum(grants) - sum(usage) = balance.
// Timestamps are Unix epoch milliseconds; BIGINT columns are read back as JavaScript numbers (see sql.ts).
import type { Migration } from "../migrate.ts";

export const ledgerMigrations: readonly Migration[] = [
  async (tx) => {
    // The upper bound is Number.MAX_SAFE_INTEGER: balances are read into JavaScript numbers.
    await tx`CREATE TABLE accounts (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      balance BIGINT NOT NULL CHECK (balance >= 0 AND balance <= 9007199254740991),
      oidc_issuer TEXT,
      oidc_subject TEXT,
      created_at BIGINT NOT NULL,
      CHECK ((oidc_issuer IS NULL) = (oidc_subject IS NULL))
    )`;
    await tx`CREATE UNIQUE INDEX accounts_oidc_identity ON accounts (oidc_issuer, oidc_subject) WHERE oidc_issuer IS NOT NULL`;
    await tx`CREATE TABLE api_keys (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      name TEXT NOT NULL,
      prefix TEXT NOT NULL,
      hash TEXT NOT NULL UNIQUE CHECK (length(hash) = 64),
      created_at BIGINT NOT NULL,
      revoked_at BIGINT,
      last_used_at BIGINT
    )`;
    await tx`CREATE INDEX api_keys_account ON api_keys (account_id)`;
    await tx`CREATE INDEX api_keys_prefix ON api_keys (prefix)`;
    await tx`CREATE TABLE usage (
      id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      request_id TEXT NOT NULL UNIQUE,
      key_id TEXT NOT NULL REFERENCES api_keys (id),
      account_id TEXT NOT NULL REFERENCES accounts (id),
      endpoint TEXT NOT NULL,
      credits BIGINT NOT NULL CHECK (credits >= 0),
      created_at BIGINT NOT NULL
    )`;
    // Serves both the per-day chart (a time range of one account) and "latest requests".
    await tx`CREATE INDEX usage_account_time ON usage (account_id, created_at)`;
    // A refund is a grant that names the charge it gives back (an answer the client never received),
    // so the invariant still holds, and at most one per request.
    await tx`CREATE TABLE grants (
      id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      credits BIGINT NOT NULL CHECK (credits > 0),
      reason TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      refund_of TEXT REFERENCES usage (request_id)
    )`;
    await tx`CREATE INDEX grants_account ON grants (account_id)`;
    await tx`CREATE UNIQUE INDEX grants_refund_of ON grants (refund_of) WHERE refund_of IS NOT NULL`;
  },
  // Processes keep active keys in memory (./key-changes.ts) and must hear at once when a key is
  // revoked or an account's balance rises; the database tells them, whichever process or tool wrote it.
  async (tx) => {
    // The argument names the row's account id column.
    await tx`CREATE FUNCTION notify_key_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('key_changes', to_jsonb(NEW) ->> TG_ARGV[0]);
        RETURN NULL;
      END $$`;
    await tx`CREATE TRIGGER api_keys_revoked AFTER UPDATE OF revoked_at ON api_keys FOR EACH ROW
             WHEN (NEW.revoked_at IS DISTINCT FROM OLD.revoked_at) EXECUTE FUNCTION notify_key_change('account_id')`;
    await tx`CREATE TRIGGER accounts_credited AFTER UPDATE OF balance ON accounts FOR EACH ROW
             WHEN (NEW.balance > OLD.balance) EXECUTE FUNCTION notify_key_change('id')`;
  },
  async (tx) => {
    // A key's own limit (in total or per UTC day) and expiry, and what it has spent against the limit:
    // in total, and on the UTC day of its latest charge (store-common's key-spend.ts reads them).
    await tx`ALTER TABLE api_keys
      ADD COLUMN credit_limit BIGINT CHECK (credit_limit > 0),
      ADD COLUMN limit_per TEXT CHECK (limit_per IN ('total', 'day')),
      ADD COLUMN expires_at BIGINT,
      ADD COLUMN spent_total BIGINT NOT NULL DEFAULT 0 CHECK (spent_total >= 0),
      ADD COLUMN spent_today BIGINT NOT NULL DEFAULT 0 CHECK (spent_today >= 0),
      ADD COLUMN spent_day BIGINT`;
  },
  async (tx) => {
    // Idempotency-Key records (core's idempotency.ts): per account, the request that owns the key and,
    // once it is answered, its answer as JSON; kept until expires_at.
    await tx`CREATE TABLE idempotency (
      account_id TEXT NOT NULL REFERENCES accounts (id),
      key TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      request_id TEXT NOT NULL,
      answer TEXT,
      created_at BIGINT NOT NULL,
      expires_at BIGINT NOT NULL,
      PRIMARY KEY (account_id, key)
    )`;
    await tx`CREATE INDEX idempotency_expiry ON idempotency (expires_at)`;
  },
  async (tx) => {
    // The request log (core's request-log.ts): a charge's duration on its usage row, every answer that
    // charged nothing in request_log (no foreign keys: a log row is written in batches, after the
    // answer, and only read by its account), and the balance below which the dashboard warns.
    await tx`ALTER TABLE usage ADD COLUMN duration_ms BIGINT`;
    await tx`CREATE TABLE request_log (
      id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      request_id TEXT NOT NULL,
      account_id TEXT NOT NULL,
      key_id TEXT NOT NULL,
      endpoint TEXT NOT NULL,
      status INT NOT NULL,
      error_code TEXT,
      duration_ms BIGINT NOT NULL,
      created_at BIGINT NOT NULL
    )`;
    // An account's log newest first; the same filtered by status (the day's 402s) without reading the
    // others; one request by its id. A purge needs none: entries are appended in time order, so the
    // oldest come first by id.
    await tx`CREATE INDEX request_log_account_time ON request_log (account_id, created_at)`;
    await tx`CREATE INDEX request_log_account_status ON request_log (account_id, status, created_at)`;
    await tx`CREATE INDEX request_log_request ON request_log (request_id)`;
    await tx`ALTER TABLE accounts ADD COLUMN low_balance_warning BIGINT CHECK (low_balance_warning >= 0)`;
  },
  // A usage row's key and account are read by the batch that writes it, under its account's lock, and
  // an unknown one is refused before anything is written; neither is ever deleted. Checked again per
  // row by foreign keys, they would add to every charged lookup a check the batch has already made.
  (tx) =>
    tx`ALTER TABLE usage DROP CONSTRAINT IF EXISTS usage_key_id_fkey, DROP CONSTRAINT IF EXISTS usage_account_id_fkey`,
  // A key's limit or expiry changed in the dashboard is heard at once, like a revocation: a cached check
  // would otherwise start requests against the old limit for up to its second.
  (tx) =>
    tx`CREATE TRIGGER api_keys_limited AFTER UPDATE OF credit_limit, limit_per, expires_at ON api_keys FOR EACH ROW
       WHEN ((NEW.credit_limit, NEW.limit_per, NEW.expires_at) IS DISTINCT FROM (OLD.credit_limit, OLD.limit_per, OLD.expires_at))
       EXECUTE FUNCTION notify_key_change('account_id')`,
  // What the client called (its path and query, so a /2 call shows as /2) on both kinds of entry, and a
  // refusal's message, for the request log's detail view; null on entries made before.
  async (tx) => {
    await tx`ALTER TABLE usage ADD COLUMN call TEXT`;
    await tx`ALTER TABLE request_log ADD COLUMN call TEXT, ADD COLUMN message TEXT`;
  },
  // The dashboard's banner counts one kind of 402 (the balance's, not a key's limit) on every page: read
  // along (account_id, status, error_code, created_at), it reads only the rows it counts, however many
  // refusals of the other kind the account has.
  (tx) => tx`CREATE INDEX request_log_account_refusal ON request_log (account_id, status, error_code, created_at)`,
];

export const settingsMigrations: readonly Migration[] = [
  (tx) => tx`CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL)`,
];
