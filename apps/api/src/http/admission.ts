// What is refused before routing: requests the router cannot place, and sizes no read ever needs.
import { ApiError } from "@social/core";

/** Longest URL accepted; the longest legitimate one (100 ids, a 512-character query, a token) is far shorter. */
export const MAX_URL_LENGTH = 8192;
/** Reads are GETs; the only bodies are MCP messages and a monitor's settings, both small. */
export const MAX_BODY_BYTES = 16 * 1024;

/** Why a request is refused before routing, if it is. */
export function unreadable(request: Request): ApiError | undefined {
  // Bun leaves scheme and host out of request.url when the Host header cannot be part of a URL (a
  // space, a slash, none on HTTP/1.0), and passes CONNECT's host:port on as it came: the router finds
  // paths in absolute URLs only.
  if (!request.url.startsWith("http://")) {
    return new ApiError(
      "invalid_request",
      "The Host header must be a host name or address with an optional port, and the request target a path",
    );
  }
  if (request.url.length > MAX_URL_LENGTH) {
    return new ApiError("invalid_request", `The URL is longer than ${MAX_URL_LENGTH} characters`);
  }
  const length = Number(request.headers.get("content-length") ?? 0);
  if (length > MAX_BODY_BYTES || request.headers.has("transfer-encoding")) {
    return new ApiError(
      "invalid_request",
      `Request bodies over ${MAX_BODY_BYTES} bytes or without a Content-Length are refused: reads are GETs, and MCP messages and monitor settings are small`,
    );
  }
}
