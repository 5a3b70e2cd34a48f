// The monitor tools' calls: list_monitors (free) and get_monitor_matches, whose new matches are charged
// as a poll of /v1/monitors/{id}/matches is (core's readMatches), its tweets compact and cut to the
// result's budget before the charge.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  type ActiveKey,
  admitted,
  listMonitors,
  type MatchesRead,
  MONITOR_LIMITS,
  type MonitorEndpoint,
  matchesView,
  parseWith,
  type RateState,
  type ReadFailure,
  readMatches,
  type Services,
  Tweet,
} from "@social/core";
import type * as v from "valibot";
import { ListArgs, MatchesArgs, type MonitorTool } from "./monitor-tools.ts";
import { accountResult, chargeLine, HEADER_RESERVE, toolResult } from "./results.ts";
import { viewData } from "./views.ts";

export interface MonitorCall {
  apiKey: string;
  requestId: string;
  receivedAt: number;
  rate?: RateState;
  /** The most characters the result's text holds. */
  maxChars: number;
}

/** Runs a monitor tool's call for the key: its result, or the failure an error result words. */
export async function callMonitorTool(
  services: Services,
  tool: MonitorTool,
  args: Record<string, unknown>,
  call: MonitorCall,
): Promise<{ ok: true; result: CallToolResult } | ReadFailure> {
  const matches = tool.name === "get_monitor_matches";
  const outcome = await admitted(
    services,
    call.apiKey,
    call.rate,
    async (key) => ({ ok: true as const, ...(await run(services, tool, key, args, call.maxChars)) }),
    {
      requestId: call.requestId,
      endpoint: (matches ? "monitors.matches" : "monitors.list") satisfies MonitorEndpoint,
      receivedAt: call.receivedAt,
      charged: (done) => done.credits.charged > 0,
    },
  );
  return outcome;
}

async function run(
  services: Services,
  tool: MonitorTool,
  key: ActiveKey,
  args: Record<string, unknown>,
  maxChars: number,
) {
  if (tool.name === "list_monitors") {
    parseWith(ListArgs, args);
    const data = await listMonitors(services.monitors, key.accountId, Date.now(), { secret: false });
    const credits = { charged: 0, remaining: key.balance };
    return { result: accountResult(data, credits), credits };
  }
  const { monitor_id: monitorId, since } = parseWith(MatchesArgs, args) as v.InferOutput<typeof MatchesArgs>;
  const compact = (tweet: unknown) => viewData(Tweet, tweet, "compact");
  const read = await readMatches(services, {
    accountId: key.accountId,
    monitorId,
    ...(since === undefined ? {} : { since }),
    max: MONITOR_LIMITS.batch,
    endpoint: "monitors.matches",
    room: {
      size: (match) => JSON.stringify({ seq: match.seq, tweet: compact(match.tweet) }).length + 1,
      max: maxChars - HEADER_RESERVE,
    },
  });
  return { result: matchesResult(read, compact), credits: read.credits };
}

function matchesResult(read: MatchesRead, compact: (tweet: unknown) => unknown): CallToolResult {
  const view = matchesView(read);
  const data = { ...view, matches: view.matches.map((match) => ({ seq: match.seq, tweet: compact(match.tweet) })) };
  const count = read.matches.length;
  const header = [
    chargeLine(read.credits),
    count === 0 ? "No matches." : `${count} ${count === 1 ? "match" : "matches"}; next_since ${read.nextSince}.`,
    read.hold ? `New matches wait: ${read.hold.message}` : "",
  ]
    .filter(Boolean)
    .join(" ");
  return toolResult({ data, credits: read.credits }, `${header}\n${JSON.stringify(data)}`);
}
