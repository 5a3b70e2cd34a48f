// One MCP tool per catalogue entry, derived, never written by hand: the name, the description (what
// it returns, when to prefer it, what it costs), the input schema and the output schema all come from
// the entry, so the tools cannot drift from the HTTP surface.
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import {
  type AccountRead,
  accountReads,
  CONTROL_PARAMS,
  catalogue,
  DryRunEnvelopeSchema,
  describePrice,
  type Endpoint,
  IdempotencyKeySchema,
  type JsonSchemaMode,
  jsonSchemaOf,
  type Toolset,
} from "@social/core";
import * as v from "valibot";

/** A catalogue read (charged), or a free read about the caller's own account (get_credits). */
export type AgentTool =
  | { kind: "read"; endpoint: Endpoint; definition: Tool }
  | { kind: "account"; read: AccountRead; definition: Tool };

/** The toolsets in catalogue order, each named once. */
export const TOOLSETS: readonly Toolset[] = [...new Set(catalogue.map((endpoint) => endpoint.toolset))];

const PAGING_NOTE =
  "Paging: call again with the same arguments plus the result's next_token for the next page; no next_token means the last page.";

const Credits = v.pipe(v.number(), v.integer(), v.minValue(0));

/**
 * The structured result of a successful call: the read's data, the credits, and the next page; for
 * dry_run=true, data null, dry_run true and the quote (credits.max, credits.rule).
 */
export function toolResultSchema(endpoint: Endpoint) {
  const quote = DryRunEnvelopeSchema.entries.meta.entries.credits.entries;
  return v.strictObject({
    data: v.nullable(endpoint.data),
    credits: v.strictObject({
      charged: Credits,
      remaining: Credits,
      capped: v.exactOptional(v.literal(true)),
      max: v.exactOptional(quote.max),
      rule: v.exactOptional(quote.rule),
    }),
    next_token: v.exactOptional(v.pipe(v.string(), v.minLength(1))),
    dry_run: v.exactOptional(v.literal(true)),
    /** A retry with the same idempotency_key: the first call's result, charged then and not again. */
    replayed: v.exactOptional(v.literal(true)),
  });
}

interface CrossFieldCheck {
  type: "partial_check";
  paths: readonly (readonly string[])[];
  message: string;
}

function isCrossFieldCheck(item: unknown): item is CrossFieldCheck {
  return typeof item === "object" && item !== null && (item as { type?: unknown }).type === "partial_check";
}

/**
 * Rules between parameters (limit only with mode=ids, ...) have no JSON Schema form, so they are
 * stated in the description. The catalogue reports each on its last parameter, which the message is about.
 */
function describeCrossFieldChecks(endpoint: Endpoint): string[] {
  const pipe = "pipe" in endpoint.params ? (endpoint.params.pipe as readonly unknown[]) : [];
  return pipe.filter(isCrossFieldCheck).map((check) => `${check.paths.at(-1)?.join(".")} ${check.message}.`);
}

function toolDescription(endpoint: Endpoint): string {
  const paged = endpoint.pageSize !== undefined;
  return [
    endpoint.summary,
    endpoint.guidance,
    ...describeCrossFieldChecks(endpoint),
    `Cost: ${describePrice(endpoint)}; failed calls are free. max_credits caps a call; dry_run=true prices it for free.`,
    ...(paged ? [PAGING_NOTE] : []),
  ].join("\n");
}

/** `get_user_by_username` → `Get user by username`. */
function toolTitle(name: string): string {
  const words = name.replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The converter's schema of an object, in the SDK's type (which leaves every keyword but a few open). */
function toolSchema(schema: v.GenericSchema, mode: JsonSchemaMode): Tool["inputSchema"] {
  const converted: Record<string, unknown> = { ...jsonSchemaOf(schema, "mcp", mode) };
  return { ...converted, type: "object" };
}

/** What an agent sends to retry a call safely: MCP has no headers of its own over stdio. */
export const IDEMPOTENCY_ARGUMENT = "idempotency_key";
const IdempotencyArgument = v.strictObject({
  [IDEMPOTENCY_ARGUMENT]: v.optional(
    v.pipe(
      IdempotencyKeySchema,
      v.description(
        "Any unique text: the same call made again with the same idempotency_key within 24 hours returns the first result again, marked replayed: true, and is not charged again; the same key with other arguments is an error; while the first call runs, a retry waits for its result.",
      ),
    ),
  ),
});

/** The entry's parameters and what every call takes: max_credits, dry_run and idempotency_key. */
function inputSchema(endpoint: Endpoint): Tool["inputSchema"] {
  const own = toolSchema(endpoint.params, "input");
  const controls = toolSchema(v.strictObject({ ...CONTROL_PARAMS, ...IdempotencyArgument.entries }), "input");
  return { ...own, properties: { ...own.properties, ...controls.properties } };
}

function toolDefinition(name: string, description: string, input: Tool["inputSchema"], output: Tool["outputSchema"]) {
  const title = toolTitle(name);
  return {
    name,
    title,
    description,
    inputSchema: input,
    outputSchema: output,
    annotations: { title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  } satisfies Tool;
}

function defineTool(endpoint: Endpoint): AgentTool {
  const output = toolSchema(toolResultSchema(endpoint), "output");
  return {
    kind: "read",
    endpoint,
    definition: toolDefinition(endpoint.tool, toolDescription(endpoint), inputSchema(endpoint), output),
  };
}

/** The free account reads an agent calls as tools, in every toolset: it must see its budget whatever it reads. */
const ACCOUNT_TOOLS: readonly AgentTool[] = accountReads.flatMap((read) => {
  if (!read.tool) return [];
  const output = v.strictObject({
    data: read.data,
    credits: v.strictObject({ charged: v.literal(0), remaining: Credits }),
  });
  const definition = toolDefinition(
    read.tool,
    `${read.summary}\nCall it before a costly series of calls, and whenever a result says credits are short.\nCost: none, never charged.`,
    toolSchema(read.params, "input"),
    toolSchema(output, "output"),
  );
  return [{ kind: "account" as const, read, definition }];
});

export const ALL_TOOLS: readonly AgentTool[] = [...catalogue.map(defineTool), ...ACCOUNT_TOOLS];

export class UnknownToolsetError extends Error {
  constructor(unknown: readonly string[]) {
    super(`Unknown toolset ${unknown.join(", ")}: choose from ${TOOLSETS.join(", ")}`);
    this.name = "UnknownToolsetError";
  }
}

function isToolset(name: string): name is Toolset {
  return (TOOLSETS as readonly string[]).includes(name);
}

/** The tools of the named toolsets; no names (or an empty list) means every tool. */
export function selectTools(toolsets: readonly string[] = []): readonly AgentTool[] {
  if (toolsets.length === 0) return ALL_TOOLS;
  const unknown = toolsets.filter((name) => !isToolset(name));
  if (unknown.length > 0) throw new UnknownToolsetError(unknown);
  const chosen = new Set(toolsets);
  return ALL_TOOLS.filter((tool) => tool.kind === "account" || chosen.has(tool.endpoint.toolset));
}

/** `search, users` → `["search", "users"]`; blank entries are ignored. */
export function parseToolsets(text: string | null | undefined): string[] {
  return (text ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
}
