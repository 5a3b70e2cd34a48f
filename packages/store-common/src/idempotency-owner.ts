// The idempotency row a debit reads in its own transaction on every adapter, as core's decideDebit
// takes it (the rule of who may still be charged is core's: packages/core/src/billing/debit.ts).
import type { IdempotencyHolder } from "@social/core";

/** The idempotency row of the debit's (account, key); none when it was released. */
export interface IdempotencyOwnerRow {
  request_id: string;
  /** Whether an answer is stored; SQLite reads the test as 0 or 1. */
  answered: boolean | number;
}

export function idempotencyHolderOf(row: IdempotencyOwnerRow | null | undefined): IdempotencyHolder | undefined {
  return row ? { requestId: row.request_id, answered: Boolean(row.answered) } : undefined;
}
