// The 402 a program can act on: what the request needed, what the account has, and the largest request
// like it that the balance covers now, in the endpoint's own parameters (a smaller `limit`, fewer `ids`).

import type { Endpoint } from "../endpoint.ts";
import { ApiError, type CreditRefusal } from "../errors.ts";
import { lookupListOf } from "../lookup-list.ts";
import type { DebitResult, KeyAllowance, KeyLimit } from "../ports/ledger.ts";
import { affordableItems, type CostRule } from "./costs.ts";

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

/** "1 credit", "21 credits". */
export function creditsText(n: number): string {
  return `${n} ${n === 1 ? "credit" : "credits"}`;
}

/** "500 credits per UTC day", "2000 credits in total". */
export function describeKeyLimit(limit: KeyLimit): string {
  return `${creditsText(limit.credits)} ${limit.per === "day" ? "per UTC day" : "in total"}`;
}

/**
 * The largest request like a refused one that `items` cover now, in the caller's own parameters (a
 * smaller `limit`, fewer `ids`); undefined when no smaller request can be asked for.
 */
export type FewerItems = (items: number) => Record<string, number> | undefined;

/**
 * The endpoint's own levers (/v1, MCP): a request returns at most as many items as it names ids (or
 * usernames), and at most its `limit` where the limit is its page size (in followers' profiles mode it is not).
 */
export function fewerItemsOf(endpoint: Endpoint, params: Record<string, unknown>): FewerItems {
  return (items): Record<string, number> | undefined => {
    const list = lookupListOf(endpoint);
    const named = list === undefined ? undefined : params[list];
    if (list !== undefined && Array.isArray(named)) return { [list]: Math.min(items, named.length) };
    if (typeof params.limit === "number" && endpoint.pageSize?.({ ...params, limit: items }) === items) {
      return { limit: Math.min(items, params.limit) };
    }
    return undefined;
  };
}

/** A fit in words: "limit=2", "ids=3". */
export function describeFit(fits: Record<string, number>): string {
  return Object.entries(fits)
    .map(([name, value]) => `${name}=${value}`)
    .join(" and ");
}

/**
 * What a 402's numbers say, for any surface: "costs 21 credits and the account has 8 remaining. The
 * same request with limit=7 fits the balance now."
 */
export function describeShortfall(credits: CreditRefusal, subject: "request" | "call"): string {
  const { required, remaining, limit, fits } = credits;
  const left = limit
    ? `this API key's limit of ${describeKeyLimit(limit)} leaves ${remaining}`
    : `the account has ${remaining} remaining`;
  const smaller = fits
    ? ` The same ${subject} with ${describeFit(fits)} fits ${limit ? "the key's limit" : "the balance"} now.`
    : "";
  return `costs ${creditsText(required)} and ${left}.${smaller}`;
}

/**
 * The 402 of a shortfall of the key `keyId`; `request` says how the caller asks for fewer items, where
 * it can.
 */
export function insufficientCredits(
  required: number,
  shortfall: Shortfall,
  keyId: string,
  request?: { rule: CostRule; fewer: FewerItems },
): ApiError {
  const { remaining } = shortfall;
  const items = request ? affordableItems(request.rule, remaining) : 0;
  const fits = request && items >= 1 && Number.isFinite(items) ? request.fewer(items) : undefined;
  const limit = shortfall.reason === "key_limit" ? { limit: shortfall.limit } : {};
  const credits: CreditRefusal = { reason: shortfall.reason, required, remaining, ...limit, ...(fits ? { fits } : {}) };
  const numbers = describeShortfall(credits, "request");
  const message =
    shortfall.reason === "key_limit"
      ? `Key limit reached: this request ${numbers} Raise the limit on this key's page in the dashboard (help_url) or use another key${shortfall.limit.per === "day" ? ", or wait for the next UTC day" : ""}.`
      : `Insufficient credits: this request ${numbers} Add credits or choose a plan on the billing page.`;
  const key = shortfall.reason === "key_limit" ? { keyId } : {};
  return new ApiError("insufficient_credits", message, { credits, ...key });
}
