// The Sessions port on bun:sqlite. Rows are keyed by the id the dashboard derives from its cookie.
import type { Database, Statement } from "bun:sqlite";
import type { SessionRecord, Sessions, SignInChecks } from "@social/core";

export class SqliteSessions implements Sessions {
  readonly #deleteExpired: Statement<void, [number]>[];
  readonly #insertSession: Statement<void, [string, string, string, number, number]>;
  readonly #findSession: Statement<{ accountId: string; csrfToken: string }, [string, number]>;
  readonly #deleteSession: Statement<void, [string]>;
  readonly #insertSignIn: Statement<void, [string, string, string, string, number]>;
  readonly #takeSignIn: Statement<{ state: string; nonce: string; codeVerifier: string }, [string, number]>;

  constructor(db: Database) {
    this.#deleteExpired = [
      db.query("DELETE FROM sessions WHERE expires_at <= ?"),
      db.query("DELETE FROM sign_in_attempts WHERE expires_at <= ?"),
    ];
    this.#insertSession = db.query(
      "INSERT INTO sessions (id, account_id, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
    );
    this.#findSession = db.query(
      "SELECT account_id AS accountId, csrf_token AS csrfToken FROM sessions WHERE id = ? AND expires_at > ?",
    );
    this.#deleteSession = db.query("DELETE FROM sessions WHERE id = ?");
    this.#insertSignIn = db.query(
      "INSERT INTO sign_in_attempts (id, state, nonce, code_verifier, expires_at) VALUES (?, ?, ?, ?, ?)",
    );
    this.#takeSignIn = db.query(
      "DELETE FROM sign_in_attempts WHERE id = ? AND expires_at > ? RETURNING state, nonce, code_verifier AS codeVerifier",
    );
  }

  async createSession(id: string, session: SessionRecord, expiresAt: number, now: number): Promise<void> {
    this.#purge(now);
    this.#insertSession.run(id, session.accountId, session.csrfToken, now, expiresAt);
  }

  async findSession(id: string, now: number): Promise<SessionRecord | undefined> {
    return this.#findSession.get(id, now) ?? undefined;
  }

  async deleteSession(id: string): Promise<void> {
    this.#deleteSession.run(id);
  }

  async saveSignIn(id: string, checks: SignInChecks, expiresAt: number, now: number): Promise<void> {
    this.#purge(now);
    this.#insertSignIn.run(id, checks.state, checks.nonce, checks.codeVerifier, expiresAt);
  }

  async takeSignIn(id: string, now: number): Promise<SignInChecks | undefined> {
    return this.#takeSignIn.get(id, now) ?? undefined;
  }

  #purge(now: number): void {
    for (const statement of this.#deleteExpired) statement.run(now);
  }
}
