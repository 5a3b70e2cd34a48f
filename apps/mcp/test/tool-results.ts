// What the tests read from a tool result: its structured content as the tools shape it, and its one
// text block.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export interface Structured {
  data: unknown;
  credits: { charged: number; remaining: number };
  next_token?: string;
  shortened?: true;
  not_found?: string[];
  unread?: string[];
}

export function structuredOf(result: CallToolResult): Structured {
  return result.structuredContent as unknown as Structured;
}

/** The result's only text block; anything else in its content is an error. */
export function textOf(result: CallToolResult): string {
  const [block, ...others] = result.content;
  if (others.length > 0 || block?.type !== "text") {
    throw new Error(`expected one text block, got ${JSON.stringify(result.content)}`);
  }
  return block.text;
}
