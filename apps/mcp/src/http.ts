// Streamable HTTP for MCP, stateless: every HTTP request gets its own server and transport, so any
// API process can answer any request and nothing is kept between them. The key is checked before
// the MCP layer sees the request, and a bad key is answered like every other 401 of the API.
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { ApiError, bearerKey, errorEnvelope, invalidRequest, newRequestId, type Services } from "@social/core";
import { checkConnectionKey } from "./auth.ts";
import { createMcpServer } from "./server.ts";
import { type AgentTool, parseToolsets, selectTools, UnknownToolsetError } from "./tools.ts";

export interface McpHttpOptions {
  /** The billing page: linked from 402 envelopes and from insufficient-credit tool results. */
  helpUrl: string;
  /** The id the HTTP app gave this request; a fresh one otherwise. */
  requestId?: string;
  /** The JSON-RPC body, when the HTTP framework has already read the request's body. */
  parsedBody?: unknown;
  logError?: (message: string, error: unknown) => void;
}

const HOW_TO_SEND_KEY = "send the header Authorization: Bearer <API_KEY>";

function errorResponse(error: ApiError, requestId: string, helpUrl: string, headers: Record<string, string> = {}) {
  return Response.json(errorEnvelope(error, requestId, helpUrl), {
    status: error.status,
    headers: { "x-request-id": requestId, ...headers },
  });
}

function toolsFor(url: URL): readonly AgentTool[] | ApiError {
  try {
    return selectTools(parseToolsets(url.searchParams.get("toolsets")));
  } catch (error) {
    if (!(error instanceof UnknownToolsetError)) throw error;
    return invalidRequest(error.message, [{ parameter: "toolsets", message: error.message }]);
  }
}

export async function handleMcpRequest(
  request: Request,
  services: Services,
  options: McpHttpOptions,
): Promise<Response> {
  const requestId = options.requestId ?? newRequestId();
  const apiKey = await checkConnectionKey(services.ledger, bearerKey(request), HOW_TO_SEND_KEY);
  if (apiKey instanceof ApiError) {
    return errorResponse(apiKey, requestId, options.helpUrl, { "www-authenticate": 'Bearer realm="mcp"' });
  }
  const tools = toolsFor(new URL(request.url));
  if (tools instanceof ApiError) return errorResponse(tools, requestId, options.helpUrl);

  // A stateless server has no stream to offer on GET and no session to end on DELETE; 405 is what
  // the Streamable HTTP specification asks for, and what the SDK's client expects.
  if (request.method !== "POST") {
    return Response.json(
      { jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed: send JSON-RPC by POST" }, id: null },
      { status: 405, headers: { allow: "POST", "x-request-id": requestId } },
    );
  }

  const logError = options.logError ?? ((message, error) => console.error(message, error));
  const server = createMcpServer(services, { apiKey, tools, logError, billingUrl: options.helpUrl });
  // JSON responses rather than SSE: each request is answered whole, so the server can close after it.
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(
      request,
      options.parsedBody === undefined ? undefined : { parsedBody: options.parsedBody },
    );
    response.headers.set("x-request-id", requestId);
    return response;
  } finally {
    await server.close();
  }
}
