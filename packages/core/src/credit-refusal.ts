// The 402 a program can act on: what the request needed, what the account has, and the largest request
// like it that the balance covers now, in the endpoint's own parameters (a smaller `limit`, fewer `ids`).
import { affordableItems, type CostRule } from "./costs.ts";
import type { Endpoint } from "./endpoint.ts";
import { ApiError, type CreditRefusal } from "./errors.ts";

/**
 * A request returns at most as many items as it names ids, and at most its `limit` where the limit is
 * its page size (in followers' profiles mode it is not): each is a lever the caller can pull.
 */
function largestFit(
  endpoint: Endpoint,
  params: Record<string, unknown>,
  rule: CostRule,
  remaining: number,
): Record<string, number> | undefined {
  const items = affordableItems(rule, remaining);
  if (items < 1 || !Number.isFinite(items)) return undefined;
  if (Array.isArray(params.ids)) return { ids: Math.min(items, params.ids.length) };
  if (typeof params.limit === "number" && endpoint.pageSize?.({ ...params, limit: items }) === items) {
    return { limit: Math.min(items, params.limit) };
  }
  return undefined;
}

/** A fit in words: "limit=2", "ids=3". */
export function describeFit(fits: Record<string, number>): string {
  return Object.entries(fits)
    .map(([name, value]) => `${name}=${value}`)
    .join(" and ");
}

/** `endpoint` and `params` are absent where the caller's parameters are not the endpoint's own (/2). */
export function insufficientCredits(
  required: number,
  remaining: number,
  request?: { endpoint: Endpoint; params: Record<string, unknown>; rule: CostRule },
): ApiError {
  const fits = request && largestFit(request.endpoint, request.params, request.rule, remaining);
  const credits: CreditRefusal = { reason: "balance", required, remaining, ...(fits ? { fits } : {}) };
  const smaller = fits ? ` A request with ${describeFit(fits)} fits the balance now.` : "";
  return new ApiError(
    "insufficient_credits",
    `Insufficient credits: this request costs ${required} credits and the account has ${remaining} remaining.${smaller} Add credits or choose a plan on the billing page.`,
    { credits },
  );
}
