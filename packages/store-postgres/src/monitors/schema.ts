// The monitors' tables on PostgreSQL: the same tables, invariants and names as on SQLite
// (packages/store-sqlite/src/monitors/schema.ts), migrated as their own component after the ledger.
// Monitors and their matches are account data, kept by a world rebuild; the arrivals are the world's
// (WORLD_TABLES in @social/store-common), truncated with it.
import { WEBHOOK_WORK } from "@social/store-common";
import type { Migration } from "../migrate.ts";

export const monitorMigrations: readonly Migration[] = [
  async (tx) => {
    // One row per monitor with its delivery state: the cursor (last_seq, charged_seq), the credits of
    // its day, the charge intent written before a debit (charge_*), the webhook's failing run
    // (failure_*), when its next delivery is due, and the lease of the process delivering it.
    await tx`CREATE TABLE monitors (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      key_id TEXT NOT NULL REFERENCES api_keys (id),
      name TEXT,
      query TEXT NOT NULL,
      delivery_type TEXT NOT NULL CHECK (delivery_type IN ('webhook', 'pull')),
      webhook_url TEXT,
      daily_credit_cap BIGINT CHECK (daily_credit_cap > 0),
      status TEXT NOT NULL CHECK (status IN ('active', 'paused')),
      paused_reason TEXT,
      paused_message TEXT,
      paused_since BIGINT,
      hold_reason TEXT,
      hold_message TEXT,
      hold_since BIGINT,
      failure_since BIGINT,
      failure_attempts BIGINT,
      failure_error TEXT,
      next_attempt_at BIGINT NOT NULL DEFAULT 0,
      secret TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      last_seq BIGINT NOT NULL DEFAULT 0,
      charged_seq BIGINT NOT NULL DEFAULT 0,
      spent_day BIGINT NOT NULL DEFAULT 0,
      spent_on_day BIGINT NOT NULL DEFAULT 0 CHECK (spent_on_day >= 0),
      charge_request_id TEXT,
      charge_after_seq BIGINT,
      charge_through_seq BIGINT,
      charge_credits BIGINT,
      charge_day BIGINT,
      charge_at BIGINT,
      lease_owner TEXT,
      lease_until BIGINT,
      claimed_at BIGINT,
      CHECK ((delivery_type = 'webhook') = (webhook_url IS NOT NULL)),
      CHECK (0 <= charged_seq AND charged_seq <= last_seq),
      CHECK ((charge_request_id IS NULL) = (charge_at IS NULL)),
      CHECK (charge_request_id IS NULL OR (charge_after_seq < charge_through_seq AND charge_through_seq <= last_seq
             AND charge_credits >= 0 AND charge_day IS NOT NULL))
    )`;
    // An account's monitors, oldest first.
    await tx`CREATE INDEX monitors_account ON monitors (account_id, created_at, id)`;
    // The active ones, for the matcher's index and the import's check that any exists.
    await tx`CREATE INDEX monitors_active ON monitors (id) WHERE status = 'active'`;
    // The webhook deliveries due, soonest first: only monitors with something to deliver are in it.
    await tx.unsafe(`CREATE INDEX monitors_webhook_due ON monitors (next_attempt_at) WHERE ${WEBHOOK_WORK}`);

    // A monitor's matches by its own sequence number (the cursor), each post once.
    await tx`CREATE TABLE monitor_matches (
      monitor_id TEXT NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
      seq BIGINT NOT NULL CHECK (seq > 0),
      tweet_id BIGINT NOT NULL,
      matched_at BIGINT NOT NULL,
      PRIMARY KEY (monitor_id, seq),
      UNIQUE (monitor_id, tweet_id)
    )`;

    // An identity never gives a seq twice (a TRUNCATE keeps its counter), so a matcher that read an
    // arrival removes that one and never a later arrival given its seq.
    await tx`CREATE TABLE monitor_arrivals (
      seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      tweet_id BIGINT NOT NULL
    )`;

    // Moves in the transaction of every change to the set of active queries (Monitors.queriesVersion).
    await tx`CREATE TABLE monitor_queries (id INT PRIMARY KEY CHECK (id = 1), version BIGINT NOT NULL)`;
    await tx`INSERT INTO monitor_queries (id, version) VALUES (1, 0)`;
  },
  async (tx) => {
    // The last seq of the webhook batch sent and not paid for yet, so that its retries send the same
    // matches under the same delivery id (Monitor.batchThroughSeq).
    await tx`ALTER TABLE monitors ADD COLUMN batch_through_seq BIGINT NOT NULL DEFAULT 0`;
  },
  async (tx) => {
    // The retention's purge (Monitors.purgeMatches): the oldest matches of every monitor first.
    await tx`CREATE INDEX monitor_matches_matched_at ON monitor_matches (matched_at)`;
  },
];
