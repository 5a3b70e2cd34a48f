// The ledger's and the accounts' refusals, for every adapter: one error type with a closed set of codes, so
// callers (the dashboard, the operator CLI) can map each case to an answer without matching on message text.
import type { KeyOptions } from "./account-ports.ts";

export type LedgerErrorCode =
  | "unknown_account"
  | "unknown_key"
  | "revoked_key"
  | "expired_key"
  | "ambiguous_key"
  | "too_many_keys"
  | "duplicate_request"
  | "idempotency_key_taken"
  | "invalid_amount"
  | "invalid_usage";

export class LedgerError extends Error {
  override readonly name = "LedgerError";

  constructor(
    readonly code: LedgerErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Credits move only in whole, non-negative, exactly representable amounts. */
export function assertCredits(credits: number, { allowZero }: { allowZero: boolean }): void {
  if (!Number.isSafeInteger(credits) || credits < 0 || (credits === 0 && !allowZero)) {
    throw new LedgerError(
      "invalid_amount",
      `credits must be a ${allowZero ? "non-negative" : "positive"} integer, got ${credits}`,
    );
  }
}

/** A key's limit is a positive number of credits, its expiry a positive instant (epoch ms). */
export function assertKeyOptions(options: KeyOptions): void {
  if (options.limit) assertCredits(options.limit.credits, { allowZero: false });
  if (options.expiresAt !== undefined) assertCredits(options.expiresAt, { allowZero: false });
}
