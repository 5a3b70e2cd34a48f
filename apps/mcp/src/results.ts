// Call outcomes as MCP tool results. Successes carry structuredContent (checked by clients against the
// tool's outputSchema) and the same object as compact JSON text, for clients that read only text.
// Failures are results with isError, worded as what the agent should change, because an agent reads
// the text and decides its next call from it.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type ApiError, describeShortfall, plainData, type ReadSuccess } from "@social/core";

/** A result an agent reads either way: as structured content, and the same object as compact JSON text. */
export function structuredResult(structured: Record<string, unknown>): CallToolResult {
  return { structuredContent: structured, content: [{ type: "text", text: JSON.stringify(structured) }] };
}

export function successResult(outcome: ReadSuccess): CallToolResult {
  const structured = outcome.dryRun
    ? { data: null, credits: outcome.credits, dry_run: true }
    : {
        data: plainData(outcome.data),
        credits: outcome.credits,
        ...(outcome.nextToken === undefined ? {} : { next_token: outcome.nextToken }),
      };
  return structuredResult(structured);
}

/**
 * A retry with the same idempotency_key: the first call's result, marked replayed, so that an agent
 * adding up what it spent does not count the first call's charge twice.
 */
export function replayedResult(first: CallToolResult): CallToolResult {
  return structuredResult({ ...first.structuredContent, replayed: true });
}

/** The error's own message, except where the numbers an agent needs are better stated plainly. */
function problem(error: ApiError): string {
  if (error.code === "insufficient_credits" && error.credits)
    return `This call ${describeShortfall(error.credits, "call")}`;
  return error.message;
}

function whatToChange(error: ApiError, tool: string, billingUrl: string | undefined): string {
  switch (error.code) {
    case "invalid_request": {
      const named = (error.details ?? []).flatMap((detail) => (detail.parameter ? [detail.parameter] : []));
      const which = named.length > 0 ? [...new Set(named)].join(", ") : "the arguments";
      return `Change ${which} accordingly, then call ${tool} again.`;
    }
    case "endpoint_not_found":
      return "Check the id or username; look it up with a search or by-username tool if unsure.";
    case "insufficient_credits": {
      const limit = error.credits?.limit;
      if (limit) {
        return `Ask for fewer items, or ask the key's owner to raise its limit${limit.per === "day" ? " (it starts over each UTC day)" : ""}.`;
      }
      return `${billingUrl ? `Add credits at ${billingUrl}` : "Add credits"}, or ask for fewer items (a smaller limit, mode=ids).`;
    }
    case "rate_limited":
    case "request_in_progress":
      return `Wait ${error.retryAfter ?? 1} seconds, then call ${tool} again.`;
    case "invalid_api_key":
    case "revoked_api_key":
      return "Reconnect with an active API key.";
    case "internal_error":
    case "service_unavailable":
      return "Try again in a moment.";
  }
}

function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** Every failure is uncharged, so every message can say so; the code and request id close it for support. */
export function errorResult(error: ApiError, tool: string, requestId: string, billingUrl?: string): CallToolResult {
  const change = whatToChange(error, tool, billingUrl);
  const text = `${sentence(problem(error))} ${change} Nothing was charged. (${error.code}, request ${requestId})`;
  return { isError: true, content: [{ type: "text", text }] };
}
