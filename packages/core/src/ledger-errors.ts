// The ledger's and the accounts' refusals, for every adapter: one error type with a closed set of codes, so
// callers (the dashboard, the operator CLI) can map each case to an answer without matching on message text.

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
