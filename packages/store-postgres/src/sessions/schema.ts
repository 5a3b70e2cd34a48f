// The dashboard's tables, as on SQLite (component "dashboard"). Both are keyed by a keyed digest of the
// cookie value, never by the value itself: a copy of the database opens no session.
import type { Migration } from "../migrate.ts";

export const sessionMigrations: readonly Migration[] = [
  async (tx) => {
    await tx`CREATE TABLE sessions (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      csrf_token TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      expires_at BIGINT NOT NULL
    )`;
    await tx`CREATE INDEX sessions_expiry ON sessions (expires_at)`;
    // What the callback must check against: one row per sign-in started, consumed by the callback.
    await tx`CREATE TABLE sign_in_attempts (
      id TEXT PRIMARY KEY,
      state TEXT NOT NULL,
      nonce TEXT NOT NULL,
      code_verifier TEXT NOT NULL,
      expires_at BIGINT NOT NULL
    )`;
    await tx`CREATE INDEX sign_in_attempts_expiry ON sign_in_attempts (expires_at)`;
  },
];
