// SPEC.md's four cost rules as pure functions, and which of them prices a call of an entry. "1 per 50
// items" rounds up: 1 to 50 items cost one credit on top of the base, 51 to 100 cost two, and an empty
// page costs the base alone.
import type { Endpoint } from "../endpoint.ts";

export type CostRule = { kind: "flat" } | { kind: "per_item"; perItem: 1 | 2 } | { kind: "per_50_items" };

export const FLAT: CostRule = { kind: "flat" };
export const PER_ITEM: CostRule = { kind: "per_item", perItem: 1 };
export const TWO_PER_ITEM: CostRule = { kind: "per_item", perItem: 2 };
export const PER_50_ITEMS: CostRule = { kind: "per_50_items" };

/** A cost that depends on a parameter's value (followers and following: mode=ids or profiles). */
export interface CostByParam {
  param: string;
  rules: Record<string, CostRule>;
}

const BASE = 1;

export function costOf(rule: CostRule, items: number): number {
  switch (rule.kind) {
    case "flat":
      return BASE;
    case "per_item":
      return BASE + rule.perItem * items;
    case "per_50_items":
      return BASE + Math.ceil(items / 50);
  }
}

/**
 * The most items a request under `rule` can return and still cost at most `credits`: -1 when even the
 * base is not covered, Infinity when the cost does not grow with items.
 */
export function affordableItems(rule: CostRule, credits: number): number {
  if (credits < BASE) return -1;
  switch (rule.kind) {
    case "flat":
      return Number.POSITIVE_INFINITY;
    case "per_item":
      return Math.floor((credits - BASE) / rule.perItem);
    case "per_50_items":
      return (credits - BASE) * 50;
  }
}

export function describeCostRule(rule: CostRule): string {
  switch (rule.kind) {
    case "flat":
      return "1 credit per request";
    case "per_item":
      return `1 credit + ${rule.perItem} per returned item`;
    case "per_50_items":
      return "1 credit + 1 per 50 returned items (rounded up)";
  }
}

/** The rule that prices a call of `endpoint` with these (validated) parameters. */
export function costRuleFor(endpoint: Endpoint, params: Record<string, unknown>): CostRule {
  const cost = endpoint.cost;
  if ("kind" in cost) return cost;
  const rule = cost.rules[String(params[cost.param])];
  if (!rule) throw new Error(`${endpoint.id}: no cost rule for ${cost.param}=${String(params[cost.param])}`);
  return rule;
}

/** An endpoint's whole cost in words, mode by mode where it depends on a parameter (docs, agent tools). */
export function describeEndpointCost(endpoint: Endpoint): string {
  const cost = endpoint.cost;
  if ("kind" in cost) return describeCostRule(cost);
  return Object.entries(cost.rules)
    .map(([value, rule]) => `${cost.param}=${value}: ${describeCostRule(rule)}`)
    .join("; ");
}
