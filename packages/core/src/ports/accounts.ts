// The state around the ledger: accounts, their keys, grants and usage summaries, and server secrets.
// The dashboard and the operator CLI reach it only through this port, so a second database adapter
// changes neither.
import type { Account, KeyAllowance, KeyLimit } from "./ledger.ts";
import type { LoggedRefusal, RequestLogPage, RequestLogQuery } from "./request-log.ts";

/**
 * Active (unrevoked) keys an account may hold: plenty for one key per app and environment, and a
 * bound on what a signed-in session or a script can make the key table hold.
 */
export const MAX_ACTIVE_KEYS_PER_ACCOUNT = 20;

export interface AccountDetails extends Account {
  createdAt: number;
  oidcIssuer: string | null;
  oidcSubject: string | null;
  /**
   * The balance below which the dashboard warns, as the customer set it; null: the default (see
   * billing/low-balance.ts).
   */
  lowBalanceWarning: number | null;
}

/** Credits added to an account: by the operator, at sign-up, or given back for an answer never delivered. */
export interface Grant {
  credits: number;
  reason: string;
  createdAt: number;
  /** The request whose charge this gives back; null for credits added. */
  refundOf: string | null;
}

export interface KeyInfo {
  id: string;
  accountId: string;
  name: string;
  prefix: string;
  createdAt: number;
  revokedAt: number | null;
  lastUsedAt: number | null;
  /** The key's own limit and what is left of it now; null for a key limited only by the balance. */
  allowance: KeyAllowance | null;
  /** When the key stops working, epoch ms; null for a key that never expires. */
  expiresAt: number | null;
}

/** What a new key may be given besides its name. */
export interface KeyOptions {
  limit?: KeyLimit;
  /** Epoch ms; the key is refused from then on. */
  expiresAt?: number;
}

/**
 * A key's name, limit and expiry as they are to be from now on: an absent limit or expiry is none. What
 * the key has spent stays, so a limit lowered below it refuses the key's next charge.
 */
export interface KeyChanges extends KeyOptions {
  name: string;
}

/** A key as created: `key` is the only copy of the secret. */
export interface NewKey {
  key: string;
  keyId: string;
  prefix: string;
}

export interface DailyUsage {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  requests: number;
  credits: number;
}

export interface RequestUsage {
  requestId: string;
  keyId: string;
  endpoint: string;
  credits: number;
  createdAt: number;
}

export type UsageGrouping = "day" | "endpoint" | "key";

/** One group of an account's charged requests: a UTC day (YYYY-MM-DD), an endpoint id or a key id. */
export interface UsageGroup {
  group: string;
  requests: number;
  credits: number;
}

/** A time range, `from` inclusive and `to` exclusive (epoch ms), and how to group it. */
export interface UsageQuery {
  from: number;
  to: number;
  groupBy: UsageGrouping;
}

export interface Accounts {
  account(accountId: string): Promise<AccountDetails | undefined>;
  /** A new account with `credits` (the starting credits when absent) and its first key, all or nothing. */
  openAccount(
    name: string,
    credits?: number,
    keyOptions?: KeyOptions,
  ): Promise<{ account: AccountDetails; key: NewKey }>;
  /** The account of an identity-provider subject, opened with the starting credits on first sign-in. */
  accountForIdentity(issuer: string, subject: string, name: string): Promise<AccountDetails>;
  /** Adds credits with a grant row; resolves to the new balance. */
  grantCredits(accountId: string, credits: number, reason?: string): Promise<number>;
  createKey(accountId: string, name: string, options?: KeyOptions): Promise<NewKey>;
  /** One key, revoked or not. */
  key(keyId: string): Promise<KeyInfo | undefined>;
  /** Keys of one account, or of every account, oldest first. */
  listKeys(accountId?: string): Promise<KeyInfo[]>;
  /** Changes an active key's name, limit and expiry; a revoked key stays as it was (revoked_key). */
  updateKey(keyId: string, changes: KeyChanges): Promise<KeyInfo>;
  /** Revokes the key that `reference` names: the key itself, its id or its displayed prefix. */
  revokeKey(reference: string): Promise<KeyInfo>;
  /** One entry per UTC day for the last `days` days, today last, days without usage included. */
  dailyUsage(accountId: string, days: number): Promise<DailyUsage[]>;
  /**
   * The account's charged requests in a range, grouped; refunded ones (answers never received) are
   * left out. Days oldest first and only days with usage; endpoints and keys by credits, most first.
   */
  usageSummary(accountId: string, query: UsageQuery): Promise<UsageGroup[]>;
  /** The latest charges, newest first. */
  recentRequests(accountId: string, limit: number): Promise<RequestUsage[]>;
  /**
   * The account's requests, charged (their usage rows, a refunded one as never delivered) and not (the
   * RequestLog's entries), newest first: one page of those the query keeps.
   */
  requestLog(accountId: string, query: RequestLogQuery): Promise<RequestLogPage>;
  /**
   * How many of the account's refusals since `since` (epoch ms) had `refusal`'s status and the code the
   * request log names them by (../request-log.ts: a key's limit apart from the balance), counted up to
   * `atMost`: a page that says "1,000+" needs no more.
   */
  countRefused(accountId: string, refusal: LoggedRefusal, since: number, atMost: number): Promise<number>;
  /** The account's grants, refunds included, newest first. */
  grants(accountId: string, limit: number): Promise<Grant[]>;
  /** The newest grant that added credits (not a refund): what the low-balance warning is a share of. */
  lastTopUp(accountId: string): Promise<Grant | undefined>;
  /** Sets the balance below which the dashboard warns; null goes back to the default. */
  setLowBalanceWarning(accountId: string, credits: number | null): Promise<void>;
  /** The server secret stored as `name`, generated on first use, so every process shares one. */
  secret(name: string): Promise<string>;
}
