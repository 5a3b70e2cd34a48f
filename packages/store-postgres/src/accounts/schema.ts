// What the key list needs beyond the ledger's tables. SQLite lists keys "oldest first" by created_at and
// then rowid, its insertion order; PostgreSQL has no stable insertion order (ctid moves when a key is
// revoked) and key ids are random, so keys created in the same millisecond need a sequence of their own.
import type { Migration } from "../migrate.ts";

export const accountsMigrations: readonly Migration[] = [
  (tx) => tx`ALTER TABLE api_keys ADD COLUMN seq BIGINT GENERATED ALWAYS AS IDENTITY`,
];
