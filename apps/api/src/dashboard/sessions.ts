// Server-side sessions and pending sign-ins. The browser holds a random token; the database holds its
// HMAC under the session secret. Each session carries its own CSRF token for the forms it renders.
import type { Database } from "bun:sqlite";
import { createHmac, randomBytes } from "node:crypto";
import { migrate } from "@social/store-sqlite";
import { dashboardMigrations } from "./schema.ts";

export const SESSION_LIFETIME_MS = 7 * 24 * 3600 * 1000;
/** Long enough to type a password at the provider, short enough that an abandoned attempt expires. */
export const SIGN_IN_LIFETIME_MS = 10 * 60 * 1000;

export interface Session {
  accountId: string;
  csrfToken: string;
}

export interface SignInChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
}

function randomToken(): string {
  return randomBytes(32).toString("base64url");
}

export class SessionStore {
  constructor(
    private readonly db: Database,
    private readonly secret: string,
    private readonly now: () => number = Date.now,
  ) {
    migrate(db, "dashboard", dashboardMigrations);
  }

  private digest(token: string): string {
    return createHmac("sha256", this.secret).update(token).digest("hex");
  }

  private deleteExpired(): void {
    const now = this.now();
    this.db.query("DELETE FROM sessions WHERE expires_at <= ?").run(now);
    this.db.query("DELETE FROM sign_in_attempts WHERE expires_at <= ?").run(now);
  }

  /** Starts a session and returns the cookie token, the only copy of it. */
  create(accountId: string): string {
    this.deleteExpired();
    const token = randomToken();
    const now = this.now();
    this.db
      .query("INSERT INTO sessions (id, account_id, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)")
      .run(this.digest(token), accountId, randomToken(), now, now + SESSION_LIFETIME_MS);
    return token;
  }

  find(token: string | undefined): Session | undefined {
    if (!token) return undefined;
    const row = this.db
      .query<{ account_id: string; csrf_token: string }, [string, number]>(
        "SELECT account_id, csrf_token FROM sessions WHERE id = ? AND expires_at > ?",
      )
      .get(this.digest(token), this.now());
    return row ? { accountId: row.account_id, csrfToken: row.csrf_token } : undefined;
  }

  destroy(token: string | undefined): void {
    if (token) this.db.query("DELETE FROM sessions WHERE id = ?").run(this.digest(token));
  }

  /** Remembers what the callback must check; returns the cookie token that finds it again. */
  saveSignIn(checks: SignInChecks): string {
    this.deleteExpired();
    const token = randomToken();
    this.db
      .query("INSERT INTO sign_in_attempts (id, state, nonce, code_verifier, expires_at) VALUES (?, ?, ?, ?, ?)")
      .run(this.digest(token), checks.state, checks.nonce, checks.codeVerifier, this.now() + SIGN_IN_LIFETIME_MS);
    return token;
  }

  /** The checks of a pending sign-in, deleted as they are read so an authorization response is used once. */
  takeSignIn(token: string | undefined): SignInChecks | undefined {
    if (!token) return undefined;
    const row = this.db
      .query<{ state: string; nonce: string; code_verifier: string }, [string, number]>(
        "DELETE FROM sign_in_attempts WHERE id = ? AND expires_at > ? RETURNING state, nonce, code_verifier",
      )
      .get(this.digest(token), this.now());
    return row ? { state: row.state, nonce: row.nonce, codeVerifier: row.code_verifier } : undefined;
  }
}
