// The credit ledger's tables. Credits are money, so the invariants live in the schema as well as in the
// code: a balance can never go negative, a key is stored only as its SHA-256 digest, and a request id
// is charged at most once. Invariant kept by every writer: sum(grants) - sum(usage) = balance.
// Timestamps are Unix epoch milliseconds.
import type { Migration } from "../migrate.ts";
import { keyChangesMigration } from "./key-changes.ts";

export const ledgerMigrations: readonly Migration[] = [
  (db) => {
    // The upper bound is Number.MAX_SAFE_INTEGER: balances are read into JavaScript numbers.
    db.run(`CREATE TABLE accounts (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      balance INTEGER NOT NULL CHECK (balance >= 0 AND balance <= 9007199254740991),
      oidc_issuer TEXT,
      oidc_subject TEXT,
      created_at INTEGER NOT NULL,
      CHECK ((oidc_issuer IS NULL) = (oidc_subject IS NULL))
    )`);
    db.run(
      "CREATE UNIQUE INDEX accounts_oidc_identity ON accounts (oidc_issuer, oidc_subject) WHERE oidc_issuer IS NOT NULL",
    );

    db.run(`CREATE TABLE api_keys (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      name TEXT NOT NULL,
      prefix TEXT NOT NULL,
      hash TEXT NOT NULL UNIQUE CHECK (length(hash) = 64),
      created_at INTEGER NOT NULL,
      revoked_at INTEGER,
      last_used_at INTEGER
    )`);
    db.run("CREATE INDEX api_keys_account ON api_keys (account_id)");
    db.run("CREATE INDEX api_keys_prefix ON api_keys (prefix)");

    db.run(`CREATE TABLE grants (
      id INTEGER PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      credits INTEGER NOT NULL CHECK (credits > 0),
      reason TEXT NOT NULL,
      created_at INTEGER NOT NULL
    )`);
    db.run("CREATE INDEX grants_account ON grants (account_id)");

    db.run(`CREATE TABLE usage (
      id INTEGER PRIMARY KEY,
      request_id TEXT NOT NULL UNIQUE,
      key_id TEXT NOT NULL REFERENCES api_keys (id),
      account_id TEXT NOT NULL REFERENCES accounts (id),
      endpoint TEXT NOT NULL,
      credits INTEGER NOT NULL CHECK (credits >= 0),
      created_at INTEGER NOT NULL
    )`);
    // Serves both the per-day chart (a time range of one account) and "latest requests".
    db.run("CREATE INDEX usage_account_time ON usage (account_id, created_at)");
  },
  (db) => {
    // A refund is a grant that names the charge it gives back (an answer the client never received),
    // so the invariant sum(grants) - sum(usage) = balance still holds, and at most one per request.
    db.run("ALTER TABLE grants ADD COLUMN refund_of TEXT REFERENCES usage (request_id)");
    db.run("CREATE UNIQUE INDEX grants_refund_of ON grants (refund_of) WHERE refund_of IS NOT NULL");
  },
  (db) => {
    // A key's own limit (in total or per UTC day) and expiry, and what it has spent against the limit:
    // in total, and on the UTC day of its latest charge (store-common's key-spend.ts reads them).
    db.run("ALTER TABLE api_keys ADD COLUMN credit_limit INTEGER CHECK (credit_limit > 0)");
    db.run("ALTER TABLE api_keys ADD COLUMN limit_per TEXT CHECK (limit_per IN ('total', 'day'))");
    db.run("ALTER TABLE api_keys ADD COLUMN expires_at INTEGER");
    db.run("ALTER TABLE api_keys ADD COLUMN spent_total INTEGER NOT NULL DEFAULT 0 CHECK (spent_total >= 0)");
    db.run("ALTER TABLE api_keys ADD COLUMN spent_today INTEGER NOT NULL DEFAULT 0 CHECK (spent_today >= 0)");
    db.run("ALTER TABLE api_keys ADD COLUMN spent_day INTEGER");
  },
  (db) => {
    // Idempotency-Key records (core's idempotency.ts): per account, the request that owns the key and,
    // once it is answered, its answer as JSON; kept until expires_at.
    db.run(`CREATE TABLE idempotency (
      account_id TEXT NOT NULL REFERENCES accounts (id),
      key TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      request_id TEXT NOT NULL,
      answer TEXT,
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      PRIMARY KEY (account_id, key)
    )`);
    db.run("CREATE INDEX idempotency_expiry ON idempotency (expires_at)");
  },
  (db) => {
    // The request log (core's request-log.ts): a charge's duration on its usage row, every answer that
    // charged nothing in request_log (no foreign keys: a log row is written in batches, after the
    // answer, and only read by its account), and the balance below which the dashboard warns.
    db.run("ALTER TABLE usage ADD COLUMN duration_ms INTEGER");
    db.run(`CREATE TABLE request_log (
      id INTEGER PRIMARY KEY,
      request_id TEXT NOT NULL,
      account_id TEXT NOT NULL,
      key_id TEXT NOT NULL,
      endpoint TEXT NOT NULL,
      status INTEGER NOT NULL,
      error_code TEXT,
      duration_ms INTEGER NOT NULL,
      created_at INTEGER NOT NULL
    )`);
    // An account's log newest first; the same filtered by status (the day's 402s) without reading the
    // others; one request by its id. A purge needs none: entries are appended in time order, so the
    // oldest come first by id.
    db.run("CREATE INDEX request_log_account_time ON request_log (account_id, created_at)");
    db.run("CREATE INDEX request_log_account_status ON request_log (account_id, status, created_at)");
    db.run("CREATE INDEX request_log_request ON request_log (request_id)");
    db.run("ALTER TABLE accounts ADD COLUMN low_balance_warning INTEGER CHECK (low_balance_warning >= 0)");
  },
  (db) => {
    // What the client called (its path and query, so a /2 call shows as /2) on both kinds of entry, and
    // a refusal's message, for the request log's detail view; null on entries made before.
    db.run("ALTER TABLE usage ADD COLUMN call TEXT");
    db.run("ALTER TABLE request_log ADD COLUMN call TEXT");
    db.run("ALTER TABLE request_log ADD COLUMN message TEXT");
  },
  (db) => {
    // The dashboard's banner counts one kind of 402 (the balance's, not a key's limit) on every page:
    // read along (account_id, status, error_code, created_at), it reads only the rows it counts,
    // however many refusals of the other kind the account has.
    db.run("CREATE INDEX request_log_account_refusal ON request_log (account_id, status, error_code, created_at)");
  },
  // Processes keep active keys' checks in memory; these triggers tell them when to forget them.
  keyChangesMigration,
];
