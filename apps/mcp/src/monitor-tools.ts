// The monitor tools, as tools/list describes them: an agent lists the account's monitors (free) and reads
// a pull monitor's matches (monitor-calls.ts runs them). Monitors are created and changed over HTTP
// (/v1/monitors); an agent only reads what they found.
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { jsonSchemaOf, paramsIssueMessage, sinceSchema } from "@social/core";
import * as v from "valibot";

/** The toolset that holds them, beside the catalogue's. */
export const MONITORS_TOOLSET = "monitors";

export const ListArgs = v.strictObject({}, paramsIssueMessage);

export const MatchesArgs = v.strictObject(
  {
    // Its form is checked where it is looked up: a malformed id is no monitor's (404).
    monitor_id: v.string("must be a string"),
    // Described once, in the tool's description: tools/list is read by an agent that pays for each token.
    since: v.optional(sinceSchema),
  },
  paramsIssueMessage,
);

export interface MonitorTool {
  kind: "monitor";
  name: "list_monitors" | "get_monitor_matches";
  args: typeof ListArgs | typeof MatchesArgs;
}

export const MONITOR_TOOLS: readonly MonitorTool[] = [
  { kind: "monitor", name: "list_monitors", args: ListArgs },
  { kind: "monitor", name: "get_monitor_matches", args: MatchesArgs },
];

const DESCRIPTIONS: Record<MonitorTool["name"], string> = {
  list_monitors: "The account's monitors (searches run on new posts).\nCost: none, never charged.",
  get_monitor_matches:
    "A pull monitor's new matches, or those after since; then pass next_since as since.\nCost: 1 credit per new post; re-reads free.",
};

const ANNOTATIONS = { readOnlyHint: true, openWorldHint: true };

/** The arguments' schema, less an empty `required`: every byte of tools/list is read by an agent. */
function inputSchema(tool: MonitorTool): Tool["inputSchema"] {
  const { required, ...schema } = jsonSchemaOf(tool.args, "mcp", "input") as Record<string, unknown>;
  return { ...schema, ...(Array.isArray(required) && required.length > 0 ? { required } : {}), type: "object" };
}

export const MONITOR_DEFINITIONS: ReadonlyMap<string, Tool> = new Map(
  MONITOR_TOOLS.map((tool): [string, Tool] => [
    tool.name,
    {
      name: tool.name,
      description: DESCRIPTIONS[tool.name],
      inputSchema: inputSchema(tool),
      outputSchema: { type: "object", required: ["data", "credits"] },
      annotations: ANNOTATIONS,
    },
  ]),
);
