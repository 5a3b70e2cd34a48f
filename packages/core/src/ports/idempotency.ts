// The port behind Idempotency-Key: ../idempotency.ts says what a retry gets from its records.

/** How long an answer is kept for retries. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A reservation not answered for this long belongs to a request whose process died (no read runs for
 * a minute): a retry takes it over, giving back whatever that request was charged.
 */
export const ABANDONED_AFTER_MS = 60_000;

/** An answer as a surface sent it, to be sent again: a JSON body and the headers that describe it. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface IdempotencyScope {
  accountId: string;
  key: string;
}

export type Reservation =
  /** This request owns the key; `abandonedBy` names a dead owner whose charge must be given back. */
  | { kind: "reserved"; abandonedBy?: string }
  | { kind: "replay"; answer: StoredAnswer }
  | { kind: "in_progress" }
  /** The key was used for a different request. */
  | { kind: "mismatch" };

/**
 * The records behind Idempotency-Key, per account. Every method is one atomic step, so concurrent
 * requests with the same key, from any process, find exactly one owner. Expired records are deleted as
 * new ones are reserved.
 */
export interface IdempotencyRecords {
  reserve(scope: IdempotencyScope, fingerprint: string, requestId: string, now: number): Promise<Reservation>;
  /** Stores the owner's answer for IDEMPOTENCY_TTL_MS; a request that no longer owns the key stores nothing. */
  complete(scope: IdempotencyScope, requestId: string, answer: StoredAnswer, now: number): Promise<void>;
  /** Gives the key up (the request failed, uncharged), so that a retry runs it afresh. */
  release(scope: IdempotencyScope, requestId: string): Promise<void>;
}
