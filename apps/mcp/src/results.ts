// Call outcomes as MCP tool results. A success carries structuredContent (checked by clients against the
// tool's outputSchema) and one text block for the agent that reads only text: first what it needs to go
// on (the charge, what is left, the next_token, how many items and what was left out), then the data as
// compact JSON. Failures are results with isError, worded as what the agent should change, because an
// agent reads the text and decides its next call from it.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  type ApiError,
  askedValues,
  type Credits,
  creditsText,
  describeFit,
  describeShortfall,
  type HelpLinks,
  IDEMPOTENCY_PARAMETER,
  listReportRoom,
  lookupListOf,
  missingValues,
  plainData,
  type ReadSuccess,
} from "@social/core";
import { type AgentTool, IDEMPOTENCY_ARGUMENT, type ReadTool } from "./tools.ts";
import { type View, viewData } from "./views.ts";

/** Room a result's text keeps for its first line (credits, counts, a next_token of up to 512 characters). */
export const HEADER_RESERVE = 1_000;

/** How much of a tool's output budget its data may take: the first line's room, and the values it may list. */
export function dataBudget(tool: ReadTool, maxChars: number): number {
  const list = lookupListOf(tool.endpoint);
  return maxChars - HEADER_RESERVE - (list === undefined ? 0 : listReportRoom(list));
}

/** A result an agent reads either way: as structured content, and as `text`. */
export function toolResult(structured: Record<string, unknown>, text: string): CallToolResult {
  return { structuredContent: structured, content: [{ type: "text", text }] };
}

/** A free account read: the data and its zero charge. */
export function accountResult(data: unknown, credits: Credits): CallToolResult {
  const structured = { data, credits };
  return toolResult(structured, `Free; ${credits.remaining} credits remaining.\n${JSON.stringify(data)}`);
}

/** A read's data as an agent sees it, and its JSON, whose length the output budget measures. */
export interface ShapedData {
  value: unknown;
  json: string;
}

/**
 * Shapes a read's data for `view`, keeping the last one: the output budget measures a read's data, and
 * the result then shows that same data.
 */
export function dataShaper(tool: ReadTool, view: View): (data: unknown) => ShapedData {
  let last: { data: unknown; shaped: ShapedData } | undefined;
  return (data) => {
    if (last !== undefined && last.data === data) return last.shaped;
    const value = viewData(tool.endpoint.data, plainData(data), view);
    const shaped = { value, json: JSON.stringify(value) };
    last = { data, shaped };
    return shaped;
  };
}

interface LookupReport {
  /** Its members of the structured result. */
  members: { not_found?: string[]; unread?: string[] };
  /** Its sentences for the text's first line. */
  sentences: string[];
}

/** For a lookup by a list: the values asked for that were read and not found, and those past a cut, not read. */
function lookupReport(
  tool: ReadTool,
  args: Record<string, unknown>,
  outcome: ReadSuccess,
  found: unknown,
): LookupReport {
  const list = lookupListOf(tool.endpoint);
  const sent = list === undefined ? undefined : args[list];
  if (list === undefined || typeof sent !== "string" || !Array.isArray(found)) return { members: {}, sentences: [] };
  const asked = askedValues(list, sent);
  const read = asked.slice(0, outcome.maxItems);
  const notFound = missingValues(list, read, found);
  const unread = asked.slice(read.length);
  return {
    members: { ...(notFound.length > 0 ? { not_found: notFound } : {}), ...(unread.length > 0 ? { unread } : {}) },
    sentences: [
      ...(notFound.length > 0 ? [`Not found: ${notFound.join(", ")}.`] : []),
      ...(unread.length > 0 ? [`Not read, to ask for again: ${list}=${unread.join(",")}.`] : []),
    ],
  };
}

export function chargeLine(credits: Credits): string {
  const capped = credits.capped ? " (max_credits lowered what it could return)" : "";
  return `Charged ${creditsText(credits.charged)}; ${credits.remaining} remaining${capped}.`;
}

export interface SuccessContext {
  tool: ReadTool;
  shape: (data: unknown) => ShapedData;
  args: Record<string, unknown>;
  /** The output budget the read was cut to, named when it was. */
  maxChars: number;
}

export function successResult(outcome: ReadSuccess, context: SuccessContext): CallToolResult {
  const { tool, shape, args, maxChars } = context;
  const { credits } = outcome;
  if (outcome.dryRun) {
    const quote = `Quote, nothing charged: at most ${creditsText(credits.max ?? 0)} (${credits.rule}); ${credits.remaining} remaining.`;
    return toolResult({ data: null, credits, dry_run: true }, quote);
  }
  const { value: data, json } = shape(outcome.data);
  const lookup = lookupReport(tool, args, outcome, data);
  const structured = {
    data,
    credits,
    ...(outcome.nextToken === undefined ? {} : { next_token: outcome.nextToken }),
    ...(outcome.shortened ? { shortened: true } : {}),
    ...lookup.members,
  };
  const count = Array.isArray(data) ? `${data.length} ${data.length === 1 ? "item" : "items"}.` : "";
  const cut = outcome.shortened ? `Cut to fit ${maxChars} characters.` : "";
  const next =
    outcome.nextToken !== undefined
      ? `More: call again with the same arguments and next_token "${outcome.nextToken}".`
      : tool.endpoint.pageSize
        ? "Last page."
        : "";
  const header = [chargeLine(credits), count, cut, next, ...lookup.sentences].filter(Boolean).join(" ");
  return toolResult(structured, `${header}\n${json}`);
}

/**
 * A retry with the same idempotency_key: the first call's result, marked replayed, so that an agent
 * adding up what it spent does not count the first call's charge twice.
 */
export function replayedResult(first: CallToolResult): CallToolResult {
  const [block] = first.content;
  const text = block?.type === "text" ? block.text : "";
  return toolResult(
    { ...first.structuredContent, replayed: true },
    `Replayed: the first result for this idempotency_key, charged then, nothing now.\n${text}`,
  );
}

/** HTTP's names for what a tool takes as an argument. */
const ARGUMENT_NAMES: Record<string, string> = { [IDEMPOTENCY_PARAMETER]: IDEMPOTENCY_ARGUMENT };

/** `limit is required` → "`limit` is required"; "this endpoint" is a tool here. */
function describeInvalid(error: ApiError, tool: string): string {
  const named = (error.details ?? []).flatMap((detail) => {
    if (!detail.parameter) return [];
    const name = ARGUMENT_NAMES[detail.parameter] ?? detail.parameter;
    return [`\`${name}\` ${detail.message.replace("this endpoint", tool)}`];
  });
  return named.length > 0 ? `Invalid arguments: ${named.join("; ")}.` : error.message;
}

/** The error's own message, except where the numbers or names an agent needs are better stated plainly. */
function problem(error: ApiError, tool: string): string {
  if (error.code === "insufficient_credits" && error.credits)
    return `This call ${describeShortfall(error.credits, "call")}`;
  if (error.code === "invalid_request") return describeInvalid(error, tool);
  return error.message;
}

function whatToChange(error: ApiError, tool: AgentTool, links: HelpLinks | undefined): string {
  switch (error.code) {
    case "invalid_request":
      return `Fix the arguments named above, then call ${tool.name} again.`;
    case "endpoint_not_found":
      return "Check the id or username passed: the read found nothing under it.";
    case "insufficient_credits": {
      const { limit, fits } = error.credits ?? {};
      const smaller = fits ? ` or call again with ${describeFit(fits)}` : "";
      if (limit) {
        const day = limit.per === "day" ? " (it starts over each UTC day)" : "";
        const page = links && error.keyId !== undefined ? ` on the key's page, ${links.key(error.keyId)}` : "";
        return `Ask the key's owner to raise its limit${page}${day}${smaller}.`;
      }
      return `${links ? `Add credits at ${links.billing}` : "Add credits"}${smaller}.`;
    }
    case "rate_limited":
    case "request_in_progress":
      return `Wait ${error.retryAfter ?? 1} seconds, then call ${tool.name} again.`;
    case "invalid_api_key":
    case "revoked_api_key":
      return "Reconnect with an active API key.";
    case "monitor_delivers_by_webhook":
      return "Its matches are posted to its webhook's URL: read them there.";
    case "too_many_streams":
      return "Close another of the account's monitor streams first.";
    case "internal_error":
    case "service_unavailable":
      return "Try again in a moment.";
  }
}

function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** Every failure is uncharged, so every message can say so; the code and request id close it for support. */
export function errorResult(error: ApiError, tool: AgentTool, requestId: string, links?: HelpLinks): CallToolResult {
  const change = whatToChange(error, tool, links);
  const text = `${sentence(problem(error, tool.name))} ${change} Nothing was charged. (${error.code}, request ${requestId})`;
  return { isError: true, content: [{ type: "text", text }] };
}
