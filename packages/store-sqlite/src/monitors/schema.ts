// The monitors' tables (core's monitors/model.ts), migrated as their own component after the ledger whose
// accounts and keys they name, in the ledger's file (ledger-file.ts). Monitors and their matches are
// account data: a world rebuild keeps them, as it keeps the ledger. The arrivals are the world's
// (WORLD_TABLES in @social/store-common): posts an import added that wait to be matched, cleared with
// the world that held them.
// Timestamps are Unix epoch milliseconds; tweet ids are INTEGER as in the world's tables.
import { WEBHOOK_WORK } from "@social/store-common";
import type { Migration } from "../migrate.ts";

export const monitorMigrations: readonly Migration[] = [
  (db) => {
    // One row per monitor with its delivery state: the cursor (last_seq, charged_seq), the credits of
    // its day, the charge intent written before a debit (charge_*), the webhook's failing run
    // (failure_*), when its next delivery is due, and the lease of the process delivering it.
    db.run(`CREATE TABLE monitors (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      key_id TEXT NOT NULL REFERENCES api_keys (id),
      name TEXT,
      query TEXT NOT NULL,
      delivery_type TEXT NOT NULL CHECK (delivery_type IN ('webhook', 'pull')),
      webhook_url TEXT,
      daily_credit_cap INTEGER CHECK (daily_credit_cap > 0),
      status TEXT NOT NULL CHECK (status IN ('active', 'paused')),
      paused_reason TEXT,
      paused_message TEXT,
      paused_since INTEGER,
      hold_reason TEXT,
      hold_message TEXT,
      hold_since INTEGER,
      failure_since INTEGER,
      failure_attempts INTEGER,
      failure_error TEXT,
      next_attempt_at INTEGER NOT NULL DEFAULT 0,
      secret TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      last_seq INTEGER NOT NULL DEFAULT 0,
      charged_seq INTEGER NOT NULL DEFAULT 0,
      spent_day INTEGER NOT NULL DEFAULT 0,
      spent_on_day INTEGER NOT NULL DEFAULT 0 CHECK (spent_on_day >= 0),
      charge_request_id TEXT,
      charge_after_seq INTEGER,
      charge_through_seq INTEGER,
      charge_credits INTEGER,
      charge_day INTEGER,
      charge_at INTEGER,
      lease_owner TEXT,
      lease_until INTEGER,
      claimed_at INTEGER,
      CHECK ((delivery_type = 'webhook') = (webhook_url IS NOT NULL)),
      CHECK (0 <= charged_seq AND charged_seq <= last_seq),
      CHECK ((charge_request_id IS NULL) = (charge_at IS NULL)),
      CHECK (charge_request_id IS NULL OR (charge_after_seq < charge_through_seq AND charge_through_seq <= last_seq
             AND charge_credits >= 0 AND charge_day IS NOT NULL))
    )`);
    // An account's monitors, oldest first.
    db.run("CREATE INDEX monitors_account ON monitors (account_id, created_at, id)");
    // The active ones, for the matcher's index and the import's check that any exists.
    db.run("CREATE INDEX monitors_active ON monitors (id) WHERE status = 'active'");
    // The webhook deliveries due, soonest first: only monitors with something to deliver are in it.
    db.run(`CREATE INDEX monitors_webhook_due ON monitors (next_attempt_at) WHERE ${WEBHOOK_WORK}`);

    // A monitor's matches by its own sequence number (the cursor), each post once.
    db.run(`CREATE TABLE monitor_matches (
      monitor_id TEXT NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
      seq INTEGER NOT NULL CHECK (seq > 0),
      tweet_id INTEGER NOT NULL,
      matched_at INTEGER NOT NULL,
      PRIMARY KEY (monitor_id, seq),
      UNIQUE (monitor_id, tweet_id)
    ) WITHOUT ROWID`);

    // The arrivals waiting for the matcher are the world's (world/schema.ts: monitorArrivals). This step
    // made them in databases that kept the ledger in the world's file, where they stay when the ledger
    // moves out: every database ends with the same tables in each file, which is why this edit of a
    // shipped step is safe.

    // Moves in the transaction of every change to the set of active queries (Monitors.queriesVersion).
    db.run("CREATE TABLE monitor_queries (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)");
    db.run("INSERT INTO monitor_queries (id, version) VALUES (1, 0)");
  },
  (db) => {
    // The last seq of the webhook batch sent and not paid for yet, so that its retries send the same
    // matches under the same delivery id (Monitor.batchThroughSeq).
    db.run("ALTER TABLE monitors ADD COLUMN batch_through_seq INTEGER NOT NULL DEFAULT 0");
  },
  (db) => {
    // The retention's purge (Monitors.purgeMatches): the oldest matches of every monitor first.
    db.run("CREATE INDEX monitor_matches_matched_at ON monitor_matches (matched_at)");
  },
];
