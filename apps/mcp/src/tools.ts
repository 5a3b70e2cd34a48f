// One MCP tool per catalogue entry, derived, never written by hand: the name, the description (what it
// returns, when to prefer it, what it costs), the input schema and the output schema all come from the
// entry, so the tools cannot drift from the HTTP surface. Every tools/list is read by an agent that pays
// for each token, so the schemas are lean, and a selection (toolsets, or tools by name) is described
// by itself alone: no description or instruction names a tool it does not hold.
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import {
  type AccountRead,
  accountReads,
  catalogue,
  describePrice,
  type Endpoint,
  jsonSchemaOf,
  renderGuidance,
  type Toolset,
  USERNAME_PATTERN,
  usernameParam,
  usernamesParam,
} from "@social/core";
import type * as v from "valibot";
import { MONITOR_DEFINITIONS, MONITOR_TOOLS, MONITORS_TOOLSET, type MonitorTool } from "./monitor-tools.ts";
import { hasViews, VIEWS, viewJsonSchema } from "./views.ts";

/**
 * A catalogue read (charged), a free read about the caller's own account (get_credits), or a read of
 * the account's monitors (monitor-tools.ts).
 */
export type AgentTool = ReadTool | AccountTool | MonitorTool;

export interface ReadTool {
  kind: "read";
  name: string;
  endpoint: Endpoint;
  /** Whether its data holds tweets or users, which `view` shapes. */
  views: boolean;
  /** Its parameters that name users by handle (one, or a list), where an agent's `@name` means `name`. */
  usernames: readonly string[];
}

export interface AccountTool {
  kind: "account";
  name: string;
  read: AccountRead;
}

/** What an agent sends to retry a call safely: MCP has no headers of its own over stdio. */
export const IDEMPOTENCY_ARGUMENT = "idempotency_key";
export const VIEW_ARGUMENT = "view";

/** The toolsets in catalogue order, each named once, then the monitors'. */
export const TOOLSETS: readonly (Toolset | typeof MONITORS_TOOLSET)[] = [
  ...new Set(catalogue.map((endpoint) => endpoint.toolset)),
  MONITORS_TOOLSET,
];

const READ_TOOLS: readonly ReadTool[] = catalogue.map((endpoint) => ({
  kind: "read",
  name: endpoint.tool,
  endpoint,
  views: hasViews(endpoint.data),
  usernames: Object.entries(endpoint.params.entries)
    .filter(([, schema]) => schema === usernameParam || schema === usernamesParam)
    .map(([name]) => name),
}));

/** The free account reads, in every selection: an agent must see its budget whatever it reads. */
const ACCOUNT_TOOLS: readonly AccountTool[] = accountReads.flatMap((read) =>
  read.tool ? [{ kind: "account" as const, name: read.tool, read }] : [],
);

export const ALL_TOOLS: readonly AgentTool[] = [...READ_TOOLS, ...MONITOR_TOOLS, ...ACCOUNT_TOOLS];

type JsonObjectSchema = Tool["inputSchema"];

/** The converter's schema of an object, in the SDK's type (which leaves every keyword but a few open). */
function objectSchema(schema: v.GenericSchema, mode: "input" | "output"): JsonObjectSchema {
  const converted: Record<string, unknown> = { ...jsonSchemaOf(schema, "mcp", mode) };
  return { ...converted, type: "object" };
}

/**
 * What every charged call takes besides the entry's own parameters, described in a few words: the server's
 * instructions say the rest once, not in each tool. The pipeline checks them whole.
 */
const CONTROL_ARGUMENTS = {
  max_credits: { type: "integer", minimum: 1, description: "Spend cap" },
  dry_run: { type: "boolean", description: "Free quote" },
  [IDEMPOTENCY_ARGUMENT]: { type: "string", maxLength: 255, description: "Free repeat" },
};

/** Compact by default, as the instructions say once for every tool. */
const VIEW_PROPERTY = { type: "string", enum: [...VIEWS] };

const USERNAME = USERNAME_PATTERN.source.slice(1, -1);

/** An agent may write a handle as @name: the pattern says so (for each name of a list), and the call strips the @. */
function withHandles(pattern: unknown): string | undefined {
  return typeof pattern === "string" ? pattern.replaceAll(USERNAME, `@?${USERNAME}`) : undefined;
}

function inputSchema(tool: ReadTool): JsonObjectSchema {
  const own = objectSchema(tool.endpoint.params, "input");
  const properties: Record<string, object> = { ...own.properties };
  for (const name of tool.usernames) {
    const property = properties[name] as { pattern?: unknown };
    properties[name] = { ...property, pattern: withHandles(property.pattern) };
  }
  if (tool.views) properties[VIEW_ARGUMENT] = VIEW_PROPERTY;
  return { ...own, properties: { ...properties, ...CONTROL_ARGUMENTS } };
}

/**
 * A successful call's structured result: the data in its view (null for a quote) and the credits; what
 * else a result may hold (next_token, dry_run, replayed, shortened, not_found) its text says first.
 */
function outputSchema(tool: ReadTool): JsonObjectSchema {
  return {
    type: "object",
    properties: { data: { anyOf: [viewJsonSchema(tool.endpoint.data), { type: "null" }] } },
    required: ["data", "credits"],
  };
}

/** Rules between parameters (limit only with mode=ids, ...) have no JSON Schema form: the description states them. */
function describeCrossFieldChecks(endpoint: Endpoint): string[] {
  const pipe = "pipe" in endpoint.params ? (endpoint.params.pipe as readonly unknown[]) : [];
  return pipe.flatMap((item) => {
    const check = item as { type?: unknown; paths?: readonly (readonly string[])[]; message?: unknown };
    return check.type === "partial_check" ? [`${check.paths?.at(-1)?.join(".")} ${String(check.message)}.`] : [];
  });
}

function readDescription(tool: ReadTool, nameOf: (id: string) => string | undefined): string {
  const { endpoint } = tool;
  return [
    endpoint.summary,
    renderGuidance(endpoint.guidance, nameOf),
    ...describeCrossFieldChecks(endpoint),
    `Cost: ${describePrice(endpoint)}.`,
  ]
    .filter(Boolean)
    .join("\n");
}

// Read-only (MCP then reads neither destructiveHint nor idempotentHint), and public social data is an
// open world: what a read returns depends on who posted what, not on this API.
const ANNOTATIONS = { readOnlyHint: true, openWorldHint: true };

const READ_SCHEMAS = new Map(READ_TOOLS.map((tool) => [tool.name, [inputSchema(tool), outputSchema(tool)] as const]));

const ACCOUNT_DEFINITIONS: readonly Tool[] = ACCOUNT_TOOLS.map((tool) => ({
  name: tool.name,
  description: `${tool.read.summary}\nCall it before a costly series of calls, and whenever a result says credits are short.\nCost: none, never charged.`,
  inputSchema: objectSchema(tool.read.params, "input"),
  outputSchema: { type: "object", required: ["data", "credits"] },
  annotations: ANNOTATIONS,
}));

/** The tools one connection holds, described for that selection alone. */
export interface ToolSelection {
  tools: readonly AgentTool[];
  definitions: readonly Tool[];
  instructions: string;
}

/** What every result and argument means, said once for the tools held (a tool's own description is short). */
function instructionsFor(tools: readonly AgentTool[]): string {
  const reads = tools.filter((tool): tool is ReadTool => tool.kind === "read");
  const workflows = reads.filter((tool) => tool.endpoint.toolset === "workflows");
  const paged = reads.some((tool) => tool.endpoint.pageSize !== undefined);
  return [
    "Read-only public social data (tweets, users, follower graphs, lists, communities).",
    `Every successful call costs credits, stated in each tool's description; each result starts with what it charged and what is left${paged ? ", and for a paged read the next_token to pass for the next page" : ""}. Failed calls are free.`,
    ...(reads.some((tool) => tool.views) ? ["Tweets and users come compact; view=full gives every field."] : []),
    paged
      ? "A result larger than its size limit is cut: a page continues with its next_token, right after the last item returned; other reads say what they left out."
      : "A result larger than its size limit is cut, and says what it left out.",
    "max_credits caps what a call may cost, dry_run=true prices it for free, and a call repeated with the same idempotency_key is free.",
    ...(tools.some((tool) => tool.kind === "monitor")
      ? ["Monitors (saved searches matched against new posts) are created over HTTP, at /v1/monitors."]
      : []),
    ...(workflows.length > 0
      ? [`Prefer the workflow tools (${workflows.map((tool) => tool.name).join(", ")}) over several basic reads.`]
      : []),
  ].join(" ");
}

function describeSelection(tools: readonly AgentTool[]): ToolSelection {
  const loaded = new Map(
    tools.flatMap((tool): [string, string][] => (tool.kind === "read" ? [[tool.endpoint.id, tool.name]] : [])),
  );
  const nameOf = (id: string) => loaded.get(id);
  const definitions = tools.map((tool): Tool => {
    if (tool.kind === "account") return ACCOUNT_DEFINITIONS.find((each) => each.name === tool.name) as Tool;
    if (tool.kind === "monitor") return MONITOR_DEFINITIONS.get(tool.name) as Tool;
    const [input, output] = READ_SCHEMAS.get(tool.name) ?? [];
    return {
      name: tool.name,
      description: readDescription(tool, nameOf),
      inputSchema: input as JsonObjectSchema,
      outputSchema: output as JsonObjectSchema,
      annotations: ANNOTATIONS,
    };
  });
  return { tools, definitions, instructions: instructionsFor(tools) };
}

export class ToolSelectionError extends Error {
  constructor(
    readonly parameter: "toolsets" | "tools",
    message: string,
  ) {
    super(message);
    this.name = "ToolSelectionError";
  }
}

/** What a connection asks for: toolsets, tools by name, or both (their union); nothing means all. */
export interface SelectionRequest {
  toolsets?: readonly string[];
  tools?: readonly string[];
}

const selections = new Map<string, ToolSelection>();
/** Bounds the descriptions kept: selections are the callers' to choose, and there are 2^39 of them. */
const MAX_SELECTIONS = 256;

/**
 * The tools of the named toolsets and the tools named, with get_credits always; unknown names are an
 * error that lists the known ones. Described once per distinct selection: /mcp asks again on every
 * request.
 */
export function selectTools(request: SelectionRequest = {}): ToolSelection {
  const toolsets = [...new Set(request.toolsets ?? [])];
  const names = [...new Set(request.tools ?? [])];
  const key = JSON.stringify([toolsets.sort(), names.sort()]);
  const cached = selections.get(key);
  if (cached) return cached;
  const unknownToolsets = toolsets.filter((name) => !(TOOLSETS as readonly string[]).includes(name));
  if (unknownToolsets.length > 0) {
    throw new ToolSelectionError(
      "toolsets",
      `Unknown toolset ${unknownToolsets.join(", ")}: choose from ${TOOLSETS.join(", ")}`,
    );
  }
  const unknownTools = names.filter((name) => !ALL_TOOLS.some((tool) => tool.name === name));
  if (unknownTools.length > 0) {
    throw new ToolSelectionError(
      "tools",
      `Unknown tool ${unknownTools.join(", ")}: choose from ${ALL_TOOLS.map((tool) => tool.name).join(", ")}`,
    );
  }
  const everything = toolsets.length === 0 && names.length === 0;
  const chosen = ALL_TOOLS.filter(
    (tool) =>
      everything ||
      tool.kind === "account" ||
      names.includes(tool.name) ||
      (toolsets as string[]).includes(tool.kind === "monitor" ? MONITORS_TOOLSET : tool.endpoint.toolset),
  );
  const selection = describeSelection(chosen);
  if (selections.size >= MAX_SELECTIONS) selections.clear();
  selections.set(key, selection);
  return selection;
}

/** `search, users` → `["search", "users"]`; blank entries are ignored. */
export function parseNames(text: string | null | undefined): string[] {
  return (text ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
}
