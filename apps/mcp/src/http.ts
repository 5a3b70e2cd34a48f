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
  type HelpLinks,
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
import { parseNames, selectTools, type ToolSelection, ToolSelectionError } from "./tools.ts";

export interface McpHttpOptions {
  /** The billing page: linked from 402 envelopes and from insufficient-credit tool results. */
  helpLinks: HelpLinks;
  /** The id the HTTP app gave this request; a fresh one otherwise. */
  requestId?: string;
  /** Aborted when the answer cannot reach the client (see McpServerOptions.answerSignal); request.signal otherwise. */
  signal?: AbortSignal;
  /** Counts a request without a valid key against its client address, so key guessing is throttled too. */
  anonymousRate: () => Promise<RateState>;
  /** The most characters a tool result's text holds (SOCIAL_MCP_MAX_CHARS). */
  maxChars?: number;
  /** The JSON-RPC body, when the HTTP framework has already read the request's body. */
  parsedBody?: unknown;
  logError?: (message: string, error: unknown) => void;
}

const HOW_TO_SEND_KEY = "send the header Authorization: Bearer <API_KEY>";

const BATCH_REFUSED =
  "Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them): send one message per request";

function errorResponse(error: ApiError, requestId: string, helpLinks: HelpLinks, headers: Record<string, string> = {}) {
  return Response.json(errorEnvelope(error, requestId, helpLinks), {
    status: error.status,
    headers: errorHeaders(error, requestId, headers),
  });
}

/** A JSON-RPC error about the HTTP request as a whole, so it answers no message id. */
function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string>) {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status, headers });
}

/** What /mcp's query may say: which tools the connection holds, by toolset and by name. */
const SELECTION_PARAMS = ["toolsets", "tools"] as const;

/** The selection the query asks for; a parameter that is not one of the two, or is given twice, is refused. */
function toolsFor(request: Request): ToolSelection | ApiError {
  const query = requestTarget(request.url).query;
  for (const name of new Set(query.keys())) {
    if (!(SELECTION_PARAMS as readonly string[]).includes(name)) {
      const message = `is not a parameter of /mcp: choose tools with ${SELECTION_PARAMS.join(" or ")}`;
      return invalidRequest(`Invalid request: ${name} ${message}`, [{ parameter: name, message }]);
    }
    if (query.getAll(name).length > 1) {
      return invalidRequest(`Invalid request: ${name} must be given only once`, [
        { parameter: name, message: "must be given only once" },
      ]);
    }
  }
  try {
    return selectTools({ toolsets: parseNames(query.get("toolsets")), tools: parseNames(query.get("tools")) });
  } catch (error) {
    if (!(error instanceof ToolSelectionError)) throw error;
    return invalidRequest(error.message, [{ parameter: error.parameter, message: error.message }]);
  }
}

/**
 * RFC 6750's challenge: without a key, only the scheme; with a key that cannot be used, invalid_token
 * and why, so that a client says "revoked" or "expired" instead of starting an OAuth sign-in.
 */
function bearerChallenge(error: ApiError, keyGiven: boolean): string {
  if (!keyGiven) return 'Bearer realm="mcp"';
  // A quoted-string of the characters RFC 6750 allows there: printable ASCII but " and \.
  const description = error.message.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, "");
  return `Bearer realm="mcp", error="invalid_token", error_description="${description}"`;
}

/** A missing or bad key is counted against the client address, as on /v1: past the limit it is a 429. */
async function refuseKey(
  error: ApiError,
  keyGiven: boolean,
  requestId: string,
  options: McpHttpOptions,
): Promise<Response> {
  const rate = await options.anonymousRate();
  if (!rate.allowed) return errorResponse(rateLimitError(rate), requestId, options.helpLinks, rateHeaders(rate));
  return errorResponse(error, requestId, options.helpLinks, {
    "www-authenticate": bearerChallenge(error, keyGiven),
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
  const key = bearerKey(request);
  const connection = await checkConnectionKey(services.ledger, key, HOW_TO_SEND_KEY);
  if (connection instanceof ApiError) return refuseKey(connection, key !== undefined, requestId, options);
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
    return errorResponse(rateLimitError(rate), requestId, options.helpLinks, headers);
  }
  const selection = toolsFor(request);
  if (selection instanceof ApiError) return errorResponse(selection, requestId, options.helpLinks, headers);
  if (message === undefined) return jsonRpcError(400, -32700, "Parse error: Invalid JSON", headers);
  // Refused before any call runs: two calls of one batch can share an id, and then both run and are
  // charged while only one answer comes back.
  if (Array.isArray(message)) return jsonRpcError(400, -32600, BATCH_REFUSED, headers);

  const signal = options.signal ?? request.signal;
  const response = await answer(request, message, services, {
    apiKey: connection.apiKey,
    selection,
    ...(options.maxChars === undefined ? {} : { maxChars: options.maxChars }),
    // Counted once above: the tool call it carries must not take a second token.
    rate,
    requestId,
    answerSignal: () => signal,
    logError: options.logError ?? ((text, error) => console.error(text, error)),
    helpLinks: options.helpLinks,
  });
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}
