// The shape of one catalogue entry: everything that is said about an endpoint, said once. Surfaces
// (HTTP /v1, /2, MCP, OpenAPI) read these plain objects; none of them restates a path, a bound, a cost,
// an example or a /2 mapping.
import type * as v from "valibot";
import type { CostByParam, CostRule } from "./billing/costs.ts";
import type { EndpointId } from "./catalogue/index.ts";
import type { JsonText } from "./json-text.ts";
import type { Cursor, PageRequest, Store } from "./ports/store.ts";
import type { V2Mapping } from "./v2-mapping.ts";

export type Family = "basic" | "enriched" | "workflow";
export type Toolset = "search" | "users" | "tweets" | "graph" | "lists" | "communities" | "workflows";

/** Path and query parameters together, as one strict object schema (or a pipe that starts with one). */
export type ParamsSchema = v.GenericSchema<Record<string, unknown>, Record<string, unknown>> & {
  readonly entries: v.ObjectEntries;
};

/**
 * The stable examples every world provides (fixtures' WorldExamples holds them), by name: core cannot
 * know a world's ids, so an entry names the example that makes its example request succeed.
 */
export type ExampleName =
  | "user_id"
  | "username"
  | "media_user_id"
  | "tweet_id"
  | "thread_tweet_id"
  | "quoted_tweet_id"
  | "retweeted_tweet_id"
  | "reply_tweet_id"
  | "article_tweet_id"
  | "list_id"
  | "community_id"
  | "community_query"
  | "search_query"
  | "woeid"
  | "source_username"
  | "target_username";

/** One example's value, or several joined with commas (an `ids` list). */
export type ExampleValue = ExampleName | readonly [ExampleName, ...ExampleName[]];

type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];

/** An example for every required parameter, and for nothing else. */
export type ExampleValues<P extends ParamsSchema> = { readonly [K in RequiredKeys<v.InferInput<P>>]: ExampleValue };

/** What a read found: its data, and the position after it when another page exists. */
export type ReadResult<D> =
  | { data: D; next?: Cursor }
  /** D's JSON text (a page too large to build as objects), with the count its cost is charged on. */
  | { data: JsonText; count: number; next?: Cursor };

export interface ReadContext<P> {
  store: Store;
  params: P;
  /** Set for paginated endpoints: the page size and the position after the previous page. */
  page: PageRequest;
  /**
   * The most items the read may return: the entry's own maximum at these parameters (maxItemsOf), or
   * fewer when the caller's max_credits covers fewer. Paginated entries get it as their page size.
   */
  maxItems: number;
}

/**
 * When to prefer a read over its neighbours: sentences, naming other entries as `{entry_id}`. Each
 * surface names them its own way (an MCP tool, a path) and leaves out a sentence naming an entry it
 * does not offer, so an agent is never pointed at a tool it was not given.
 */
export type Guidance = readonly string[];

const ENTRY_REFERENCE = /\{([a-z_]+)\}/g;

/** The entry ids a guidance sentence names. */
export function guidanceReferences(sentence: string): string[] {
  return [...sentence.matchAll(ENTRY_REFERENCE)].map((match) => match[1] as string);
}

/** Guidance as one text, each entry named by `nameOf`; sentences naming an entry it has no name for are left out. */
export function renderGuidance(guidance: Guidance, nameOf: (id: string) => string | undefined): string {
  return guidance
    .filter((sentence) => guidanceReferences(sentence).every((id) => nameOf(id) !== undefined))
    .map((sentence) => sentence.replace(ENTRY_REFERENCE, (_, id: string) => nameOf(id) ?? id))
    .join(" ");
}

/** An entry as it is written: `P` its parameters schema, `S` its data schema. */
export interface EndpointDefinition<Id extends string, P extends ParamsSchema, S extends v.GenericSchema> {
  /** Stable operation id; also the scope that binds pagination tokens. */
  id: Id;
  /** OpenAPI-style path, `{name}` for path parameters. */
  path: string;
  family: Family;
  toolset: Toolset;
  /** The MCP tool name: what an agent wants, in snake_case. */
  tool: string;
  /** Set on an entry SPEC.md does not list: why it exists (the /2 path X API v2 code calls). */
  beyond?: string;
  /** One line, fit for docs and agent tools. */
  summary: string;
  /** When an agent should prefer this read over its neighbours. */
  guidance: Guidance;
  params: P;
  /** Which world example fills each required parameter in example requests (OpenAPI, docs, tests). */
  examples: ExampleValues<P>;
  cost: CostRule | CostByParam;
  data: S;
  /** The items the cost rule counts; by default the data's length, or 1 for one object. */
  counted?: (data: v.InferOutput<S>) => number;
  /** The page size, for paginated endpoints (those with a next_token parameter). */
  pageSize?: (params: v.InferOutput<P>) => number;
  /**
   * The most items `counted` can count at these parameters, for entries whose cost grows with items
   * but which have no page (ids lookups, workflows); their `run` returns at most `maxItems` of them.
   * Paginated entries count at most a page, flat ones nothing.
   */
  maxItems?: (params: v.InferOutput<P>) => number;
  /** The X API v2 form, where SPEC.md's mapping names one. */
  v2?: V2Mapping<v.InferOutput<S>>;
  run: (context: ReadContext<v.InferOutput<P>>) => Promise<ReadResult<v.InferOutput<S>>>;
}

/** An entry as the catalogue stores it, its types erased: surfaces read every entry alike. */
export interface Endpoint<Id extends string = EndpointId>
  extends Omit<EndpointDefinition<Id, ParamsSchema, v.GenericSchema>, "examples" | "counted"> {
  examples: Readonly<Record<string, ExampleValue>>;
  counted: (data: unknown) => number;
}

function countOf(data: unknown): number {
  return Array.isArray(data) ? data.length : 1;
}

/**
 * Declares an entry with its params and data typed from its schemas. The one cast erases those types
 * for the catalogue: the pipeline only ever calls `run` and `pageSize` with the output of this entry's
 * params schema, and `counted` and `v2.items` with the objects its own `run` returned (never JSON text:
 * that comes with its count, and only mode=ids, which /2 never asks for, returns it).
 */
export function defineEndpoint<const Id extends string, P extends ParamsSchema, S extends v.GenericSchema>(
  entry: EndpointDefinition<Id, P, S>,
): Endpoint<Id> {
  return { ...entry, counted: entry.counted ?? countOf } as unknown as Endpoint<Id>;
}

/** The most items a request counts, at its page size (a surface may set its own, like /2's max_results). */
export function maxItemsOf(endpoint: Endpoint, params: Record<string, unknown>, pageSize: number): number {
  return endpoint.maxItems?.(params) ?? pageSize;
}

export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
}
