// The tables that let many processes charge one account without taking turns on its row
// (./credit-shards.ts says how they are used). Run after the accounts component, whose `seq` column the
// key view lists.
import type { Migration } from "../migrate.ts";

export const shardMigrations: readonly Migration[] = [
  async (tx) => {
    // Credits moved out of accounts.balance for one process to spend: an account's balance is its row's
    // plus its shards'. A shard belongs to nobody; `used_at` tells an idle one, which is folded back.
    // Not indexed: every batch writes it, and an index on it would keep the row from being updated in
    // place; the table has a row per account and process, which the fold reads whole.
    await tx`CREATE TABLE credit_shards (
      account_id TEXT NOT NULL REFERENCES accounts (id),
      shard INT NOT NULL,
      credits BIGINT NOT NULL CHECK (credits >= 0),
      used_at BIGINT NOT NULL,
      PRIMARY KEY (account_id, shard)
    )`;
    // What keys spent through a shard, kept as the same three figures as api_keys' (and as amounts to
    // add to them: a part may be negative, a refund taken from a charge recorded elsewhere). A key's
    // spend is its row's and its parts', merged by spend_today.
    await tx`CREATE TABLE key_spend_shards (
      key_id TEXT NOT NULL REFERENCES api_keys (id),
      shard INT NOT NULL,
      spent_total BIGINT NOT NULL,
      spent_today BIGINT NOT NULL,
      spent_day BIGINT NOT NULL,
      last_used_at BIGINT,
      PRIMARY KEY (key_id, shard)
    )`;
    // A refund now lowers the key row's figures while the charge it refunds may sit in a shard: the row
    // alone may go below zero, the merged spend never does.
    await tx`ALTER TABLE api_keys DROP CONSTRAINT api_keys_spent_total_check, DROP CONSTRAINT api_keys_spent_today_check`;
    // Spend on the later of two days: what is spent on an earlier day is no longer "today". A null day
    // is no spend at all.
    await tx`CREATE FUNCTION spend_today(today_a BIGINT, day_a BIGINT, today_b BIGINT, day_b BIGINT) RETURNS BIGINT
      LANGUAGE sql IMMUTABLE AS $$
        SELECT CASE WHEN day_b IS NULL OR day_a > day_b THEN today_a
                    WHEN day_a = day_b THEN today_a + today_b ELSE today_b END $$`;
    // api_keys with each key's spend and last use merged from its parts: what every reader of a key's
    // spend reads. Its columns are api_keys' (a test holds them equal; a column added to api_keys is
    // added here by recreating the view).
    await tx`CREATE VIEW api_key_totals AS
      SELECT k.id, k.account_id, k.name, k.prefix, k.hash, k.created_at, k.revoked_at,
        GREATEST(k.last_used_at, s.used) AS last_used_at,
        k.credit_limit, k.limit_per, k.expires_at,
        k.spent_total + coalesce(s.total, 0)::bigint AS spent_total,
        spend_today(k.spent_today, k.spent_day, s.today::bigint, s.day) AS spent_today,
        GREATEST(k.spent_day, s.day) AS spent_day,
        k.seq
      FROM api_keys k LEFT JOIN LATERAL (
        SELECT sum(p.spent_total) AS total, max(p.spent_day) AS day, max(p.last_used_at) AS used,
          sum(p.spent_today) FILTER (WHERE p.spent_day = p.latest) AS today
        FROM (SELECT *, max(spent_day) OVER () AS latest FROM key_spend_shards WHERE key_id = k.id) p
      ) s ON true`;
  },
];
