// The 402 a program can act on: what the request needed, what the account has, and the largest request
// like it that the balance covers now, in the endpoint's own parameters (a smaller `limit`, fewer `ids`).
import { affordableItems, type CostRule } from "./costs.ts";
import type { Endpoint } from "./endpoint.ts";
import { ApiError, type CreditRefusal } from "./errors.ts";
import type { DebitResult, KeyAllowance, KeyLimit } from "./ports.ts";

/** A refused debit: the account's balance or the key's limit fell short. */
export type Shortfall = Extract<DebitResult, { ok: false }>;

/**
 * Whether `required` credits can be spent: refused for the account's balance or the key's allowance,
 * whichever leaves less (a tie names the balance); undefined when both cover it. The ledgers decide
 * their debits with it, and the pipeline its early refusal.
 */
export function shortfallOf(balance: number, allowance: KeyAllowance | null | undefined, required: number) {
  const balanceShort = balance < required;
  if (allowance && allowance.remaining < required && (!balanceShort || allowance.remaining < balance)) {
    const { remaining, ...limit } = allowance;
    return { ok: false, reason: "key_limit", remaining, limit } satisfies Shortfall;
  }
  return balanceShort ? ({ ok: false, reason: "balance", remaining: balance } satisfies Shortfall) : undefined;
}

/** "500 credits per day", "2000 credits in total". */
export function describeKeyLimit(limit: KeyLimit): string {
  return `${limit.credits} credits ${limit.per === "day" ? "per UTC day" : "in total"}`;
}

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

/**
 * The 402 of a shortfall. `endpoint` and `params` are absent where the caller's parameters are not the
 * endpoint's own (/2).
 */
export function insufficientCredits(
  required: number,
  shortfall: Shortfall,
  request?: { endpoint: Endpoint; params: Record<string, unknown>; rule: CostRule },
): ApiError {
  const { remaining } = shortfall;
  const fits = request && largestFit(request.endpoint, request.params, request.rule, remaining);
  const limit = shortfall.reason === "key_limit" ? { limit: shortfall.limit } : {};
  const credits: CreditRefusal = { reason: shortfall.reason, required, remaining, ...limit, ...(fits ? { fits } : {}) };
  const what = shortfall.reason === "key_limit" ? "the key's limit" : "the balance";
  const smaller = fits ? ` A request with ${describeFit(fits)} fits ${what} now.` : "";
  const message =
    shortfall.reason === "key_limit"
      ? `Key limit reached: this request costs ${required} credits and this API key's limit of ${describeKeyLimit(shortfall.limit)} leaves ${remaining}.${smaller} Raise the key's limit in the dashboard or use another key${shortfall.limit.per === "day" ? ", or wait for the next UTC day" : ""}.`
      : `Insufficient credits: this request costs ${required} credits and the account has ${remaining} remaining.${smaller} Add credits or choose a plan on the billing page.`;
  return new ApiError("insufficient_credits", message, { credits });
}
