// When the dashboard warns that credits run low: below the threshold the customer set, or by default
// below a tenth of the credits last added (a refund is no top-up), so a warning comes before the 402s.
import type { Grant } from "./account-ports.ts";

export const DEFAULT_WARNING_SHARE = 0.1;

/** The balance below which to warn: the setting when there is one, else a tenth of the last grant. */
export function lowBalanceThreshold(setting: number | null, grants: readonly Grant[]): number {
  if (setting !== null) return setting;
  const lastTopUp = grants.find((grant) => grant.refundOf === null);
  return lastTopUp ? Math.floor(lastTopUp.credits * DEFAULT_WARNING_SHARE) : 0;
}
