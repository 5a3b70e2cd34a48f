// Credits an account is given, and why: every change of a balance outside a debit is a grant row with
// one of these reasons, written in the same transaction (the dashboard lists them as they are).

/** What a new account starts with, unless its opener says otherwise (the operator CLI's `keys create --credits`). */
export const STARTING_CREDITS = 1000;

export const GRANT_REASONS = {
  /** The first grant of an account the operator opened. */
  starting: "starting credits",
  /** The first grant of an account opened by its owner's first sign-in. */
  signUp: "sign-up credits",
  /** The default reason of a grant the operator makes. */
  operator: "operator grant",
  /** The charge of a request whose answer was not delivered, given back (its grant names the request). */
  refund: "refund: answer not delivered",
} as const;

/** The reason of credits the operator adds for a purchase of `plan` (`credits grant --plan`). */
export function purchaseReason(plan: string): string {
  return `purchase: ${plan}`;
}
