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
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_MCP_MAX_CHARS } from "@social/composition";
import {
  ApiError,
  executeAccountRead,
  executeRead,
  type HelpLinks,
  invalidRequest,
  newRequestId,
  type RateState,
  type Services,
  separateControls,
} from "@social/core";
import { callMonitorTool } from "./monitor-calls.ts";
import { accountResult, dataBudget, dataShaper, errorResult, replayedResult, successResult } from "./results.ts";
import { IDEMPOTENCY_ARGUMENT, type ReadTool, type ToolSelection, VIEW_ARGUMENT } from "./tools.ts";
import { VIEWS, type View } from "./views.ts";

const SERVER_INFO = { name: "social-data-api", version: "1.0.0" };

export interface McpServerOptions {
  /** The caller's key: every call is authenticated and billed with it. */
  apiKey: string;
  selection: ToolSelection;
  /** The most characters a result's text holds: larger pages are cut, and continue with next_token. */
  maxChars?: number;
  /** Where credits are added and a key's limit raised, named in insufficient-credit results (HTTP knows them). */
  helpLinks?: HelpLinks;
  /** Where failures that are the service's fault are reported; never stdout, which stdio uses. */
  logError: (message: string, error: unknown) => void;
  /** The rate-limit state of the HTTP request carrying the call, already counted (Streamable HTTP). */
  rate?: RateState;
  /** The HTTP request carrying the call (Streamable HTTP): its x-request-id is the call's request id. */
  requestId?: string;
  /**
   * The signal of a call's answer, by the call's JSON-RPC id: aborted when the answer cannot reach the
   * client (its HTTP connection closed, stdout closed, the call cancelled, the process stopping), before
   * or after the call returns; the read is then not charged, or refunded. Without it, the SDK's own
   * signal, which follows MCP cancellation only and cannot tell whether an answer was written.
   */
  answerSignal?: (callId: RequestId) => AbortSignal;
}

function isView(value: unknown): value is View {
  return (VIEWS as readonly unknown[]).includes(value);
}

/** The MCP-only arguments of a read, apart from the entry's parameters and the controls. */
function readArguments(tool: ReadTool, args: Record<string, unknown>) {
  const { [IDEMPOTENCY_ARGUMENT]: idempotencyKey, [VIEW_ARGUMENT]: given, ...rest } = args;
  // Only tools whose data holds tweets or users take a view; elsewhere it is an unknown parameter.
  if (!tool.views && given !== undefined) rest[VIEW_ARGUMENT] = given;
  const view = tool.views ? (given ?? "compact") : "compact";
  if (!isView(view)) {
    const message = `must be one of ${VIEWS.join(", ")}`;
    throw invalidRequest(`Invalid request: view ${message}`, [{ parameter: VIEW_ARGUMENT, message }]);
  }
  // An agent often writes a handle as it reads on the page.
  for (const name of tool.usernames) {
    const handle = rest[name];
    if (typeof handle === "string") rest[name] = handle.replace(/(^|,)@/g, "$1");
  }
  return { idempotencyKey, view, ...separateControls(rest) };
}

export function createMcpServer(services: Services, options: McpServerOptions): Server {
  const { selection } = options;
  const maxChars = options.maxChars ?? DEFAULT_MCP_MAX_CHARS;
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: selection.instructions });
  const toolsByName = new Map(selection.tools.map((tool) => [tool.name, tool]));

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...selection.definitions] }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = toolsByName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
    const requestId = options.requestId ?? newRequestId();
    const receivedAt = performance.now();
    const args = request.params.arguments ?? {};
    const rate = options.rate ? { rate: options.rate } : {};
    try {
      if (tool.kind === "account") {
        const outcome = await executeAccountRead(services, {
          read: tool.read,
          params: args,
          apiKey: options.apiKey,
          requestId,
          receivedAt,
          ...rate,
        });
        return outcome.ok
          ? accountResult(outcome.data, outcome.credits)
          : errorResult(outcome.error, tool, requestId, options.helpLinks);
      }
      if (tool.kind === "monitor") {
        const outcome = await callMonitorTool(services, tool, args, {
          apiKey: options.apiKey,
          requestId,
          receivedAt,
          maxChars,
          ...rate,
        });
        return outcome.ok ? outcome.result : errorResult(outcome.error, tool, requestId, options.helpLinks);
      }
      let call: ReturnType<typeof readArguments>;
      try {
        call = readArguments(tool, args);
      } catch (error) {
        if (error instanceof ApiError) return errorResult(error, tool, requestId, options.helpLinks);
        throw error;
      }
      const { idempotencyKey, view, params, controls } = call;
      const shape = dataShaper(tool, view);
      const outcome = await executeRead(services, {
        endpoint: tool.endpoint,
        params,
        controls,
        ...(idempotencyKey === undefined
          ? {}
          : { idempotency: { key: idempotencyKey, surface: "mcp", shaping: { view } } }),
        apiKey: options.apiKey,
        requestId,
        receivedAt,
        signal: options.answerSignal?.(extra.requestId) ?? extra.signal,
        outputLimit: { size: (data) => shape(data).json.length, max: dataBudget(tool, maxChars) },
        ...rate,
      });
      if (!outcome.ok) return errorResult(outcome.error, tool, requestId, options.helpLinks);
      if (outcome.replay) return replayedResult(JSON.parse(outcome.replay.body) as CallToolResult);
      const result = successResult(outcome, { tool, shape, args: params, maxChars });
      await outcome.remember?.({ status: 200, headers: {}, body: JSON.stringify(result) });
      return result;
    } catch (error) {
      options.logError(`${tool.name} failed (request ${requestId})`, error);
      const failure = new ApiError("internal_error", "The read failed on the server.");
      return errorResult(failure, tool, requestId, options.helpLinks);
    }
  });

  return server;
}
