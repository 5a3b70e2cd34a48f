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
  | "invalid_usage"
  | "balance_limit";

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

/** The most credits an account can hold: balances are read into JavaScript numbers (both schemas check it). */
export const MAX_BALANCE = Number.MAX_SAFE_INTEGER;

/** The refusal of a grant that would take `balance` past MAX_BALANCE. */
export function balanceLimitReached(accountId: string, balance: number, credits: number): LedgerError {
  return new LedgerError(
    "balance_limit",
    `${accountId} holds ${balance} credits: ${credits} more would pass ${MAX_BALANCE}, the most an account can hold`,
  );
}

/** A key's limit is a positive number of credits, its expiry a positive instant (epoch ms). */
export function assertKeyOptions(options: KeyOptions): void {
  if (options.limit) assertCredits(options.limit.credits, { allowZero: false });
  if (options.expiresAt !== undefined) assertCredits(options.expiresAt, { allowZero: false });
}
