// The shape of one catalogue entry: everything that is said about an endpoint, said once. Surfaces
// (HTTP /v1, /2, MCP, OpenAPI) read these plain objects; none of them restates a path, a bound or a cost.
import type * as v from "valibot";
import { type CostRule, describeCostRule } from "./costs.ts";
import type { Cursor, PageRequest, Store } from "./ports.ts";

export type Family = "basic" | "enriched" | "workflow";
export type Toolset = "search" | "users" | "tweets" | "graph" | "lists" | "communities" | "workflows";

/** A cost that depends on a parameter's value (followers and following: mode=ids or profiles). */
export interface CostByParam {
  param: string;
  rules: Record<string, CostRule>;
}

export interface ReadResult {
  data: unknown;
  /** The items the cost rule counts. */
  items: number;
  next?: Cursor;
}

export interface ReadContext<P> {
  store: Store;
  params: P;
  /** Set for paginated endpoints: the page size and the position after the previous page. */
  page: PageRequest;
}

interface EndpointFields {
  /** Stable operation id; also the scope that binds pagination tokens. */
  id: string;
  /** OpenAPI-style path, `{name}` for path parameters. */
  path: string;
  family: Family;
  toolset: Toolset;
  /** The MCP tool name: what an agent wants, in snake_case. */
  tool: string;
  /** One line, fit for docs and agent tools. */
  summary: string;
  /** When an agent should prefer this read over its neighbours. */
  guidance: string;
  cost: CostRule | CostByParam;
  data: v.GenericSchema;
  /** The page size, for paginated endpoints (those with a next_token parameter). */
  pageSize?: (params: Record<string, unknown>) => number;
  /** The /2 compatibility path, where SPEC.md's mapping names one. */
  v2Path?: string;
}

export interface Endpoint extends EndpointFields {
  /** Path and query parameters together, as one strict object schema. */
  params: v.GenericSchema<Record<string, unknown>, Record<string, unknown>>;
  run(context: ReadContext<Record<string, unknown>>): Promise<ReadResult>;
}

/**
 * Declares an entry with its params typed from its schema; the catalogue stores it type-erased, since
 * the pipeline only ever runs `run` with the output of that same schema.
 */
export function defineEndpoint<P extends v.GenericSchema<Record<string, unknown>, Record<string, unknown>>>(
  fields: EndpointFields & { params: P; run(context: ReadContext<v.InferOutput<P>>): Promise<ReadResult> },
): Endpoint {
  return fields as unknown as Endpoint;
}

export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
}

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
