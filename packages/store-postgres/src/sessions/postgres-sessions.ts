// The Sessions port on PostgreSQL, with the semantics of SQLite's
// (packages/store-sqlite/src/sessions/sqlite-sessions.ts). Rows are keyed by the id the dashboard
// derives from its cookie.
import type { SessionRecord, Sessions, SignInChecks } from "@social/core";
import type { SQL } from "bun";

export class PostgresSessions implements Sessions {
  readonly #sql: SQL;

  constructor(sql: SQL) {
    this.#sql = sql;
  }

  // Storing a row first removes the expired ones of both tables, in the same round trip.
  async createSession(id: string, session: SessionRecord, expiresAt: number, now: number): Promise<void> {
    await this.#sql`
      WITH expired_sessions AS (DELETE FROM sessions WHERE expires_at <= ${now}),
        expired_sign_ins AS (DELETE FROM sign_in_attempts WHERE expires_at <= ${now})
      INSERT INTO sessions (id, account_id, csrf_token, created_at, expires_at)
      VALUES (${id}, ${session.accountId}, ${session.csrfToken}, ${now}, ${expiresAt})`;
  }

  async findSession(id: string, now: number): Promise<SessionRecord | undefined> {
    const [row] = await this.#sql<SessionRecord[]>`
      SELECT account_id AS "accountId", csrf_token AS "csrfToken" FROM sessions
      WHERE id = ${id} AND expires_at > ${now}`;
    return row;
  }

  async deleteSession(id: string): Promise<void> {
    await this.#sql`DELETE FROM sessions WHERE id = ${id}`;
  }

  async saveSignIn(id: string, checks: SignInChecks, expiresAt: number, now: number): Promise<void> {
    await this.#sql`
      WITH expired_sessions AS (DELETE FROM sessions WHERE expires_at <= ${now}),
        expired_sign_ins AS (DELETE FROM sign_in_attempts WHERE expires_at <= ${now})
      INSERT INTO sign_in_attempts (id, state, nonce, code_verifier, expires_at)
      VALUES (${id}, ${checks.state}, ${checks.nonce}, ${checks.codeVerifier}, ${expiresAt})`;
  }

  /** One DELETE … RETURNING: of two callbacks racing with one attempt, only one gets its checks. */
  async takeSignIn(id: string, now: number): Promise<SignInChecks | undefined> {
    const [row] = await this.#sql<SignInChecks[]>`
      DELETE FROM sign_in_attempts WHERE id = ${id} AND expires_at > ${now}
      RETURNING state, nonce, code_verifier AS "codeVerifier"`;
    return row;
  }
}
