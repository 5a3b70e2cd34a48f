// What a request may cost before it is read: the items a max_credits cap leaves it, and the quote a
// dry run answers. Both start from the most items the request can count (maxItemsOf), so the quote is
// never below the charge and a capped read never above its cap.
import * as v from "valibot";
import type { Endpoint, ParamsSchema } from "../endpoint.ts";
import { maxItemsOf } from "../endpoint.ts";
import { invalidRequest } from "../errors.ts";
import { lookupListOf } from "../lookup-list.ts";
import { MAX_IDS } from "../params.ts";
import {
  affordableItems,
  type CostRule,
  costOf,
  costRuleFor,
  describeCostRule,
  describeEndpointCost,
} from "./costs.ts";

/**
 * The items a request may return under `cap`, at most `most`. A cap below the cost of the smallest
 * useful answer (the base, plus one item where the cost grows with items) is refused: a page that
 * could hold nothing would be charged the base and continue where it started, forever.
 */
export function withinCap(cap: number | undefined, rule: CostRule, most: number): number {
  if (cap === undefined) return most;
  const minimum = costOf(rule, Math.min(1, most));
  if (cap < minimum) {
    const message = `must be at least ${minimum}: the smallest answer of this request costs ${minimum} (${describeCostRule(rule)})`;
    throw invalidRequest(`Invalid request: max_credits ${message}`, [{ parameter: "max_credits", message, minimum }]);
  }
  return Math.min(most, affordableItems(rule, cap));
}

/** The most a request reading at most `maxItems` can cost, and the rule that prices it. */
export function quoteOf(rule: CostRule, maxItems: number): { max: number; rule: string } {
  return { max: costOf(rule, maxItems), rule: describeCostRule(rule) };
}

function largestLimit(schema: ParamsSchema): number | undefined {
  let limit: v.GenericSchema | undefined = schema.entries.limit as v.GenericSchema | undefined;
  while (limit && "wrapped" in limit) limit = limit.wrapped as v.GenericSchema;
  const pipe = limit && "pipe" in limit ? (limit.pipe as readonly { type: string; requirement?: unknown }[]) : [];
  const max = pipe.find((item) => item.type === "max_value")?.requirement;
  return typeof max === "number" ? max : undefined;
}

/**
 * The most a call can cost, in words for docs and agents: at the entry's defaults and at its largest
 * limit (or with the most ids), for each value of a parameter its price depends on. Empty for flat ones.
 */
export function describeMaxCost(endpoint: Endpoint): string {
  const defaults = Object.fromEntries(
    Object.entries(endpoint.params.entries).map(([name, schema]) => [name, v.getDefault(schema)]),
  );
  const cost = endpoint.cost;
  const variants: Record<string, unknown>[] =
    "kind" in cost ? [{}] : Object.keys(cost.rules).map((value) => ({ [cost.param]: value }));
  const limit = largestLimit(endpoint.params);
  const sentences = variants.flatMap((variant) => {
    const params = { ...defaults, ...variant };
    const rule = costRuleFor(endpoint, params);
    if (rule.kind === "flat") return [];
    const most = (at: Record<string, unknown>) => costOf(rule, maxItemsOf(endpoint, at, endpoint.pageSize?.(at) ?? 0));
    const prefix = "kind" in cost ? "" : `${Object.entries(variant)[0]?.join("=")}: `;
    const list = lookupListOf(endpoint);
    if (list !== undefined) {
      return [
        `${prefix}at most ${most({ ...params, [list]: Array(MAX_IDS).fill("1") })} credits with ${MAX_IDS} ${list}`,
      ];
    }
    const atDefault = most(params);
    const atLargest = limit === undefined ? atDefault : most({ ...params, limit });
    if (atLargest === atDefault) return [`${prefix}at most ${atDefault} credits`];
    return [`${prefix}at most ${atDefault} credits at the default limit, ${atLargest} at limit=${limit}`];
  });
  return sentences.join("; ");
}

/** The cost rule and the most a call can cost, in one phrase (OpenAPI, MCP tool descriptions). */
export function describePrice(endpoint: Endpoint): string {
  return [describeEndpointCost(endpoint), describeMaxCost(endpoint)].filter(Boolean).join("; ");
}
