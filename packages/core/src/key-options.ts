// A new key's limit and expiry as people type them, in the operator CLI (--limit N --per day
// --expires 2027-01-31) and the dashboard's key form: read once here so both accept and refuse alike.

import { assertCredits } from "./billing/amounts.ts";
import { describeKeyLimit } from "./billing/credit-refusal.ts";
import type { KeyOptions } from "./ports/accounts.ts";
import type { KeyAllowance } from "./ports/ledger.ts";

export interface KeyOptionsText {
  /** Credits; empty or absent for no limit. */
  limit?: string | undefined;
  /** "total" (the default) or "day". */
  per?: string | undefined;
  /** A UTC date (YYYY-MM-DD: the key is refused from its first moment) or an ISO 8601 time; empty for never. */
  expires?: string | undefined;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/** The options, or the sentence that says what is wrong with the text. */
export function parseKeyOptions(text: KeyOptionsText, now: number): { options: KeyOptions } | { error: string } {
  const options: KeyOptions = {};
  const limit = text.limit?.trim() ?? "";
  const per = text.per?.trim() || "total";
  if (per !== "total" && per !== "day")
    return { error: `The limit is per "total" or per "day", not ${JSON.stringify(per)}.` };
  if (limit !== "") {
    const credits = Number(limit);
    if (!/^\d+$/.test(limit) || !Number.isSafeInteger(credits) || credits < 1) {
      return { error: `A key's limit is a whole number of credits of at least 1, not ${JSON.stringify(limit)}.` };
    }
    options.limit = { credits, per };
  } else if (per === "day") {
    // "total" is the default a form's select always sends; a day without a number is a mistake.
    return { error: "A limit per day needs a limit: give the number of credits too." };
  }
  const expires = text.expires?.trim() ?? "";
  if (expires !== "") {
    const at = DATE.test(expires)
      ? Date.parse(`${expires}T00:00:00Z`)
      : INSTANT.test(expires)
        ? Date.parse(expires)
        : NaN;
    if (Number.isNaN(at)) {
      return {
        error: `An expiry is a date like 2027-01-31 or a time like 2027-01-31T12:00:00Z, not ${JSON.stringify(expires)}.`,
      };
    }
    if (at <= now) return { error: `The expiry ${expires} has already passed: choose a later one.` };
    options.expiresAt = at;
  }
  return { options };
}

/** "500 credits per UTC day, 120 left", or "no limit". */
export function describeAllowance(allowance: KeyAllowance | null): string {
  return allowance ? `${describeKeyLimit(allowance)}, ${allowance.remaining} left` : "no limit";
}

/** A key's limit is a positive number of credits, its expiry a positive instant (epoch ms). */
export function assertKeyOptions(options: KeyOptions): void {
  if (options.limit) assertCredits(options.limit.credits, { allowZero: false });
  if (options.expiresAt !== undefined) assertCredits(options.expiresAt, { allowZero: false });
}
