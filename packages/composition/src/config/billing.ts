// BILLING_URL, BILLING_CONTACT and BILLING_PLANS: what credits cost on this server and where to get
// more, shown on the dashboard's /billing page. Checked at start: a price list the page would show
// wrong, or a link that is no web page, stops the server instead.
import * as v from "valibot";

const Plan = v.strictObject({
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(60)),
  credits: v.pipe(v.number(), v.integer(), v.minValue(1)),
  price: v.pipe(v.string(), v.minLength(1), v.maxLength(40)),
  note: v.optional(v.pipe(v.string(), v.maxLength(200))),
});
const Plans = v.pipe(v.array(Plan), v.maxLength(12));
export type Plan = v.InferOutput<typeof Plan>;

export interface BillingSettings {
  /** The operator's checkout: a customer is sent there to buy credits. */
  url?: string;
  /** Where to ask for credits: an e-mail address or a web page. */
  contact?: string;
  plans: readonly Plan[];
}

const EMAIL = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

/** Whether BILLING_CONTACT is an address to write to (a mailto: link) rather than a web page. */
export function isEmailAddress(contact: string): boolean {
  return EMAIL.test(contact);
}

function webAddress(value: string, name: string): string {
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) {
    throw new Error(`${name} must be an http(s) URL`);
  }
  return value;
}

/** The placeholders BILLING_URL may hold, filled in for each Buy button. */
export const CHECKOUT_PLACEHOLDERS = { accountId: "{account_id}", plan: "{plan}" } as const;

/** BILLING_URL for one account buying one plan (an empty plan: no plan chosen), each value URI-encoded. */
export function checkoutUrl(template: string, accountId: string, plan: string): string {
  return template
    .replaceAll(CHECKOUT_PLACEHOLDERS.accountId, encodeURIComponent(accountId))
    .replaceAll(CHECKOUT_PLACEHOLDERS.plan, encodeURIComponent(plan));
}

export function billingUrlFrom(value: string | undefined): string | undefined {
  return value === undefined ? undefined : webAddress(value, "BILLING_URL");
}

export function billingContactFrom(value: string | undefined): string | undefined {
  if (value !== undefined && !isEmailAddress(value)) webAddress(value, "BILLING_CONTACT (an e-mail address or a URL)");
  return value;
}

/** A JSON array of {name, credits, price, note?}; none when unset. */
export function billingPlansFrom(value: string | undefined): Plan[] {
  if (value === undefined) return [];
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch {
    throw new Error("BILLING_PLANS must be JSON: an array of {name, credits, price, note?}");
  }
  const result = v.safeParse(Plans, json);
  if (!result.success) {
    const issue = result.issues[0];
    const where = issue.path?.map((item) => String(item.key)).join(".") ?? "";
    throw new Error(
      `BILLING_PLANS ${where ? `${where} ` : ""}${issue.message}: expected an array of {name, credits, price, note?}`,
    );
  }
  return result.output;
}

const PRICE = /^(\D*?)\s*(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\s*(\D*)$/;

/**
 * A plan's price per 1,000 credits in the price's own currency ("$10" for 10,000 credits: "$1.00"),
 * or undefined when the price is not one amount with a currency around it ("free", "$5/month + tax").
 */
export function pricePerThousand(plan: Plan): string | undefined {
  const match = PRICE.exec(plan.price.trim());
  if (!match) return undefined;
  const [, before = "", whole = "", fraction = "", after = ""] = match;
  const amount = Number(`${whole.replaceAll(",", "")}${fraction}`);
  if (!Number.isFinite(amount) || amount === 0) return undefined;
  const per = (amount * 1000) / plan.credits;
  // Cents, or as many more digits as a fraction of a cent needs to show at all.
  const digits = per >= 0.01 ? 2 : Math.min(6, 2 - Math.floor(Math.log10(per)));
  const text = per.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: digits });
  return `${before}${before && /\w$/.test(before) ? " " : ""}${text}${after && /^\w/.test(after) ? " " : ""}${after}`;
}
