// JSON responses with the headers every answer of this API carries.
import { type ApiError, errorEnvelope, errorHeaders } from "@social/core";

const JSON_TYPE = "application/json; charset=utf-8";

export function json(body: unknown, status: number, headers: Record<string, string>): Response {
  return jsonText(JSON.stringify(body), status, headers);
}

export function jsonText(text: string, status: number, headers: Record<string, string>): Response {
  return new Response(text, { status, headers: { "content-type": JSON_TYPE, ...headers } });
}

export function errorResponse(
  error: ApiError,
  requestId: string,
  helpUrl: string,
  headers: Record<string, string> = {},
): Response {
  return json(errorEnvelope(error, requestId, helpUrl), error.status, errorHeaders(error, requestId, headers));
}
