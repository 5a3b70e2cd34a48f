// When the dashboard warns that credits run low: below the threshold the customer set, or by default
// below a tenth of the credits last added (a refund is no top-up), so a warning comes before the 402s.
import type { Grant } from "../ports/accounts.ts";

export const DEFAULT_WARNING_SHARE = 0.1;

/** The balance below which to warn: the setting when there is one, else a tenth of the last top-up. */
export function lowBalanceThreshold(setting: number | null, lastTopUp: Grant | undefined): number {
  if (setting !== null) return setting;
  return lastTopUp ? Math.floor(lastTopUp.credits * DEFAULT_WARNING_SHARE) : 0;
}
