// A debit sent with an Idempotency-Key is made only while its request still owns the key, checked in
// the debit's own transaction on every adapter: a retry that took an abandoned reservation over gives
// the first request's charge back, so the first request must not be charged after that.
import { LedgerError, type UsageRecord } from "@social/core";

/** The idempotency row of the debit's (account, key), as a debit reads it; none when it was released. */
export interface IdempotencyOwnerRow {
  request_id: string;
  /** Whether an answer is stored: a request that owns the key is still unanswered. */
  answered: boolean | number;
}

export function ownsIdempotencyKey(row: IdempotencyOwnerRow | null | undefined, usage: UsageRecord): boolean {
  return row?.request_id === usage.requestId && !row.answered;
}

export function idempotencyKeyTaken(usage: UsageRecord): LedgerError {
  return new LedgerError(
    "idempotency_key_taken",
    `request ${usage.requestId} no longer holds Idempotency-Key ${JSON.stringify(usage.idempotencyKey)}`,
  );
}
