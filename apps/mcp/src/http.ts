// Streamable HTTP for MCP, stateless: every HTTP request gets its own server and transport, so any
// API process can answer any request and nothing is kept between them. The key is checked before
// the MCP layer sees the request, and a bad key is answered like every other 401 of the API. Every
// POST is counted once against the rate limit, as a /v1 request is: by key, or by client address
// when the key is missing or bad.
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isJSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import {
  ApiError,
  bearerKey,
  errorEnvelope,
  errorHeaders,
  invalidRequest,
  newRequestId,
  type RateState,
  rateHeaders,
  rateLimitError,
  requestTarget,
  type Services,
} from "@social/core";
import { checkConnectionKey } from "./auth.ts";
import { createMcpServer, type McpServerOptions } from "./server.ts";
import { type AgentTool, parseToolsets, selectTools, UnknownToolsetError } from "./tools.ts";

export interface McpHttpOptions {
  /** The billing page: linked from 402 envelopes and from insufficient-credit tool results. */
  helpUrl: string;
  /** The id the HTTP app gave this request; a fresh one otherwise. */
  requestId?: string;
  /** Counts a request without a valid key against its client address, so key guessing is throttled too. */
  anonymousRate: () => Promise<RateState>;
  /** The JSON-RPC body, when the HTTP framework has already read the request's body. */
  parsedBody?: unknown;
  logError?: (message: string, error: unknown) => void;
}

const HOW_TO_SEND_KEY = "send the header Authorization: Bearer <API_KEY>";

const BATCH_REFUSED =
  "Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them): send one message per request";

function errorResponse(error: ApiError, requestId: string, helpUrl: string, headers: Record<string, string> = {}) {
  return Response.json(errorEnvelope(error, requestId, helpUrl), {
    status: error.status,
    headers: errorHeaders(error, requestId, headers),
  });
}

/** A JSON-RPC error about the HTTP request as a whole, so it answers no message id. */
function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string>) {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status, headers });
}

function toolsFor(request: Request): readonly AgentTool[] | ApiError {
  try {
    return selectTools(parseToolsets(requestTarget(request.url).query.get("toolsets")));
  } catch (error) {
    if (!(error instanceof UnknownToolsetError)) throw error;
    return invalidRequest(error.message, [{ parameter: "toolsets", message: error.message }]);
  }
}

/** A missing or bad key is counted against the client address, as on /v1: past the limit it is a 429. */
async function refuseKey(error: ApiError, requestId: string, options: McpHttpOptions): Promise<Response> {
  const rate = await options.anonymousRate();
  if (!rate.allowed) return errorResponse(rateLimitError(rate), requestId, options.helpUrl, rateHeaders(rate));
  return errorResponse(error, requestId, options.helpUrl, {
    "www-authenticate": 'Bearer realm="mcp"',
    ...rateHeaders(rate),
  });
}

/** The body as JSON, or undefined when it is not JSON (no JSON text parses to undefined). */
async function readMessage(request: Request, parsedBody: unknown): Promise<unknown> {
  if (parsedBody !== undefined) return parsedBody;
  try {
    return await request.json();
  } catch {
    return undefined;
  }
}

/** A refused tool call goes on to executeRead, which answers it as the tool error an agent reads. */
function isToolCall(message: unknown): boolean {
  return isJSONRPCRequest(message) && message.method === "tools/call";
}

/** Answers one JSON-RPC message with a server and transport of its own, closed once it is answered. */
async function answer(request: Request, message: unknown, services: Services, options: McpServerOptions) {
  const server = createMcpServer(services, options);
  // JSON responses rather than SSE: each request is answered whole, so the server can close after it.
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    // The SDK parses the request's URL itself, which throws for Host headers a client may send
    // (`x:y`); the body is already read, so a Request with a fixed URL and the same headers serves.
    const normalised = new Request("http://mcp/mcp", { method: request.method, headers: request.headers });
    return await transport.handleRequest(normalised, { parsedBody: message });
  } finally {
    await server.close();
  }
}

export async function handleMcpRequest(
  request: Request,
  services: Services,
  options: McpHttpOptions,
): Promise<Response> {
  const requestId = options.requestId ?? newRequestId();
  const connection = await checkConnectionKey(services.ledger, bearerKey(request), HOW_TO_SEND_KEY);
  if (connection instanceof ApiError) return refuseKey(connection, requestId, options);
  // A stateless server has no stream to offer on GET and no session to end on DELETE; 405 is what
  // the Streamable HTTP specification asks for, and what the SDK's client expects.
  if (request.method !== "POST") {
    return jsonRpcError(405, -32000, "Method not allowed: send JSON-RPC by POST", {
      allow: "POST",
      "x-request-id": requestId,
    });
  }

  // Counted before the body is checked, as /v1 counts a request before validating it.
  const message = await readMessage(request, options.parsedBody);
  const rate = await services.limiter.take(connection.keyId);
  const headers = { "x-request-id": requestId, ...rateHeaders(rate) };
  if (!rate.allowed && !isToolCall(message)) {
    return errorResponse(rateLimitError(rate), requestId, options.helpUrl, headers);
  }
  const tools = toolsFor(request);
  if (tools instanceof ApiError) return errorResponse(tools, requestId, options.helpUrl, headers);
  if (message === undefined) return jsonRpcError(400, -32700, "Parse error: Invalid JSON", headers);
  // Refused before any call runs: two calls of one batch can share an id, and then both run and are
  // charged while only one answer comes back.
  if (Array.isArray(message)) return jsonRpcError(400, -32600, BATCH_REFUSED, headers);

  const response = await answer(request, message, services, {
    apiKey: connection.apiKey,
    tools,
    // Counted once above: the tool call it carries must not take a second token.
    rate,
    requestId,
    signal: request.signal,
    logError: options.logError ?? ((text, error) => console.error(text, error)),
    billingUrl: options.helpUrl,
  });
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}
