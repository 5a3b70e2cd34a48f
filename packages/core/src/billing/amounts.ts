// The amounts credits move in, and the most an account can hold: every debit, grant, limit and
// setting is checked against these before it reaches a ledger's SQL.
import { LedgerError } from "../ledger-errors.ts";

/** The most credits an account can hold: balances are read into JavaScript numbers (both schemas check it). */
export const MAX_BALANCE = Number.MAX_SAFE_INTEGER;

/** The refusal of `credits` unless whole, non-negative (positive, unless `allowZero`) and exactly representable. */
export function invalidAmount(credits: number, { allowZero }: { allowZero: boolean }): LedgerError | undefined {
  if (Number.isSafeInteger(credits) && credits >= 0 && (credits > 0 || allowZero)) return undefined;
  return new LedgerError(
    "invalid_amount",
    `credits must be a ${allowZero ? "non-negative" : "positive"} integer, got ${credits}`,
  );
}

export function assertCredits(credits: number, options: { allowZero: boolean }): void {
  const error = invalidAmount(credits, options);
  if (error) throw error;
}

/** The refusal of a grant that would take `balance` past MAX_BALANCE. */
export function balanceLimitReached(accountId: string, balance: number, credits: number): LedgerError {
  return new LedgerError(
    "balance_limit",
    `${accountId} holds ${balance} credits: ${credits} more would pass ${MAX_BALANCE}, the most an account can hold`,
  );
}
