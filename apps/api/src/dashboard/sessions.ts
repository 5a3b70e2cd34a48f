// Server-side sessions and pending sign-ins. The browser holds a random token; the Sessions port
// stores only its HMAC under the session secret, so a copy of the database opens no session. Each
// session carries its own CSRF token for the forms it renders.
import { createHmac, randomBytes } from "node:crypto";
import type { SessionRecord, Sessions, SignInChecks } from "@social/core";

export const SESSION_LIFETIME_MS = 7 * 24 * 3600 * 1000;
/** Long enough to type a password at the provider, short enough that an abandoned attempt expires. */
export const SIGN_IN_LIFETIME_MS = 10 * 60 * 1000;

function randomToken(): string {
  return randomBytes(32).toString("base64url");
}

export class SessionStore {
  constructor(
    private readonly sessions: Sessions,
    private readonly secret: string,
    private readonly now: () => number = Date.now,
  ) {}

  private digest(token: string): string {
    return createHmac("sha256", this.secret).update(token).digest("hex");
  }

  /** Starts a session and returns the cookie token, the only copy of it. */
  async create(accountId: string): Promise<string> {
    const token = randomToken();
    const now = this.now();
    const session = { accountId, csrfToken: randomToken() };
    await this.sessions.createSession(this.digest(token), session, now + SESSION_LIFETIME_MS, now);
    return token;
  }

  async find(token: string | undefined): Promise<SessionRecord | undefined> {
    return token ? this.sessions.findSession(this.digest(token), this.now()) : undefined;
  }

  async destroy(token: string | undefined): Promise<void> {
    if (token) await this.sessions.deleteSession(this.digest(token));
  }

  /** Remembers what the callback must check; returns the cookie token that finds it again. */
  async saveSignIn(checks: SignInChecks): Promise<string> {
    const token = randomToken();
    const now = this.now();
    await this.sessions.saveSignIn(this.digest(token), checks, now + SIGN_IN_LIFETIME_MS, now);
    return token;
  }

  /** The checks of a pending sign-in, deleted as they are read so an authorization response is used once. */
  async takeSignIn(token: string | undefined): Promise<SignInChecks | undefined> {
    return token ? this.sessions.takeSignIn(this.digest(token), this.now()) : undefined;
  }
}
