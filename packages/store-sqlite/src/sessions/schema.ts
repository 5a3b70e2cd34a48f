// The dashboard's own tables, migrated as their own component ("dashboard", its name since it began)
// so the ledger schema stays untouched.
// Both tables are keyed by a keyed digest of the cookie value, never by the value itself: a copy of
// the database opens no session and completes no sign-in.
import type { Migration } from "../migrate.ts";

export const sessionMigrations: readonly Migration[] = [
  (db) => {
    db.run(`CREATE TABLE sessions (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      csrf_token TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL
    )`);
    db.run("CREATE INDEX sessions_expiry ON sessions (expires_at)");

    // What the callback must check against: one row per sign-in started, consumed by the callback.
    db.run(`CREATE TABLE sign_in_attempts (
      id TEXT PRIMARY KEY,
      state TEXT NOT NULL,
      nonce TEXT NOT NULL,
      code_verifier TEXT NOT NULL,
      expires_at INTEGER NOT NULL
    )`);
    db.run("CREATE INDEX sign_in_attempts_expiry ON sign_in_attempts (expires_at)");
  },
];
