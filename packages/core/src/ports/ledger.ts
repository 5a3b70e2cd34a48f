// The credit Ledger: key checks, the all-or-nothing debit with its usage record, and refunds, with the
// account, key-limit and debit types it answers in.

export interface Account {
  id: string;
  name: string;
  balance: number;
}

/** A key's own cap on what it may spend: in total, or per UTC day. */
export interface KeyLimit {
  credits: number;
  per: "total" | "day";
}

/** A key's limit with what is left of it now. */
export interface KeyAllowance extends KeyLimit {
  remaining: number;
}

export type KeyCheck =
  | {
      status: "active";
      accountId: string;
      keyId: string;
      balance: number;
      /** Absent for a key without a limit. */
      allowance?: KeyAllowance;
      /** When the key stops working, epoch ms; absent for a key that never expires. */
      expiresAt?: number;
    }
  | { status: "revoked"; keyId: string }
  | { status: "unknown" };

export interface UsageRecord {
  requestId: string;
  keyId: string;
  endpoint: string;
  credits: number;
  /**
   * The request's Idempotency-Key, when it sent one: the debit is made only while the request still
   * owns the key's reservation (see IdempotencyRecords), in the same transaction.
   */
  idempotencyKey?: string;
  /** How long the request took until its charge, in ms: the usage row is its entry of the request log. */
  durationMs?: number;
  /** What the client called (see calledAs in ../request-log.ts), for the request log. */
  call?: string;
}

/**
 * A refused debit says whose credits fell short: the account's balance (remaining: the balance) or the
 * key's limit (remaining: what the limit leaves).
 */
export type DebitResult =
  | { ok: true; remaining: number }
  | { ok: false; reason: "balance"; remaining: number }
  | { ok: false; reason: "key_limit"; remaining: number; limit: KeyLimit };

/**
 * The credit ledger. `debit` is all-or-nothing: it succeeds only if the balance covers `credits`, and
 * the balance change and the usage record are written in one transaction; the promise resolves only
 * once that transaction is durable.
 */
export interface Ledger {
  /** Looks a key up by the SHA-256 hex digest of its secret; an active key comes with its account's balance. */
  checkKey(keyHash: string): Promise<KeyCheck>;
  balance(accountId: string): Promise<number>;
  debit(accountId: string, usage: UsageRecord): Promise<DebitResult>;
  /**
   * Gives back the whole charge of `requestId` (an answer the client never received), with a
   * compensating grant that names the request. At most once per request; a request never charged is
   * left alone.
   */
  refund(accountId: string, requestId: string): Promise<void>;
}
