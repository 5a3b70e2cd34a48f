// The MCP server for one caller: lists the selected tools and runs each call through executeRead,
// the same pipeline and ledger as HTTP, so a tool call is billed exactly like the HTTP request.
// The low-level Server is used because McpServer accepts only zod schemas; the catalogue is valibot.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import {
  ApiError,
  executeAccountRead,
  executeRead,
  newRequestId,
  type RateState,
  type Services,
  separateControls,
} from "@social/core";
import { errorResult, replayedResult, structuredResult, successResult } from "./results.ts";
import { type AgentTool, IDEMPOTENCY_ARGUMENT } from "./tools.ts";

const SERVER_INFO = { name: "social-data-api", version: "1.0.0" };

const INSTRUCTIONS =
  "Read-only public social data (tweets, users, follower graphs, lists, communities). Every successful call costs credits, stated in each tool's description and reported in the result; failed calls are free. Prefer the workflow tools (get_profile_by_username, get_tweet_context, get_tweet_thread) over several basic reads.";

export interface McpServerOptions {
  /** The caller's key: every call is authenticated and billed with it. */
  apiKey: string;
  tools: readonly AgentTool[];
  /** Where credits can be added, named in insufficient-credit results. */
  billingUrl?: string;
  /** Where failures that are the service's fault are reported; never stdout, which stdio uses. */
  logError: (message: string, error: unknown) => void;
  /** The rate-limit state of the HTTP request carrying the call, already counted (Streamable HTTP). */
  rate?: RateState;
  /** The HTTP request carrying the call (Streamable HTTP): its x-request-id is the call's request id. */
  requestId?: string;
  /**
   * Aborted when the HTTP client of the call hangs up. The SDK's own signal only follows MCP
   * cancellation, so without this a read whose answer nobody receives would be charged.
   */
  signal?: AbortSignal;
}

export function createMcpServer(services: Services, options: McpServerOptions): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  const toolsByName = new Map(options.tools.map((tool) => [tool.definition.name, tool]));

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: options.tools.map((tool) => tool.definition),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = toolsByName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
    const requestId = options.requestId ?? newRequestId();
    try {
      if (tool.kind === "account") {
        const outcome = await executeAccountRead(services, {
          read: tool.read,
          params: request.params.arguments ?? {},
          apiKey: options.apiKey,
          ...(options.rate ? { rate: options.rate } : {}),
        });
        return outcome.ok
          ? structuredResult({ data: outcome.data, credits: outcome.credits })
          : errorResult(outcome.error, tool.definition.name, requestId, options.billingUrl);
      }
      const { [IDEMPOTENCY_ARGUMENT]: idempotencyKey, ...args } = request.params.arguments ?? {};
      const { params, controls } = separateControls(args);
      const outcome = await executeRead(services, {
        endpoint: tool.endpoint,
        params,
        controls,
        ...(idempotencyKey === undefined ? {} : { idempotency: { key: idempotencyKey, surface: "mcp" } }),
        apiKey: options.apiKey,
        requestId,
        // Cancelled by the client, or its HTTP connection closed: not charged, or refunded.
        signal: options.signal ? AbortSignal.any([extra.signal, options.signal]) : extra.signal,
        ...(options.rate ? { rate: options.rate } : {}),
      });
      if (!outcome.ok) return errorResult(outcome.error, tool.definition.name, requestId, options.billingUrl);
      if (outcome.replay) return replayedResult(JSON.parse(outcome.replay.body) as CallToolResult);
      const result = successResult(outcome);
      await outcome.remember?.({ status: 200, headers: {}, body: JSON.stringify(result) });
      return result;
    } catch (error) {
      options.logError(`${tool.definition.name} failed (request ${requestId})`, error);
      const failure = new ApiError("internal_error", "The read failed on the server.");
      return errorResult(failure, tool.definition.name, requestId, options.billingUrl);
    }
  });

  return server;
}
