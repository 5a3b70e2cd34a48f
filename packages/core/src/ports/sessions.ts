// The dashboard's sessions and pending sign-ins, stored by the adapter under ids the dashboard derives.

/** What a signed-in browser's session holds. */
export interface SessionRecord {
  accountId: string;
  csrfToken: string;
}

/** What the sign-in callback must check the provider's answer against. */
export interface SignInChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/**
 * Dashboard sessions and pending sign-ins, stored under ids the caller derives from the cookie (a
 * keyed digest, never the cookie itself). Expired rows are removed whenever a new one is stored, so
 * neither table grows without bound.
 */
export interface Sessions {
  createSession(id: string, session: SessionRecord, expiresAt: number, now: number): Promise<void>;
  findSession(id: string, now: number): Promise<SessionRecord | undefined>;
  deleteSession(id: string): Promise<void>;
  saveSignIn(id: string, checks: SignInChecks, expiresAt: number, now: number): Promise<void>;
  /** The checks of a pending sign-in, deleted as they are read so that it completes at most once. */
  takeSignIn(id: string, now: number): Promise<SignInChecks | undefined>;
}
