// JSON responses with the headers every answer of this API carries.
import { type ApiError, errorEnvelope, errorHeaders, type HelpLinks, type StoredAnswer } from "@social/core";

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
  helpLinks: HelpLinks,
  headers: Record<string, string> = {},
): Response {
  return json(errorEnvelope(error, requestId, helpLinks), error.status, errorHeaders(error, requestId, headers));
}

/** A success as an Idempotency-Key retry will get it again: the body and the headers that describe it. */
export function answerToStore(body: string, requestId: string, headers: Record<string, string> = {}): StoredAnswer {
  return { status: 200, headers: { "content-type": JSON_TYPE, "x-request-id": requestId, ...headers }, body };
}

/**
 * A stored answer sent again: the first request's body and request id, this request's rate-limit
 * headers, and Idempotent-Replayed so the client knows nothing was read or charged this time.
 */
export function replayResponse(answer: StoredAnswer, headers: Record<string, string>): Response {
  return new Response(answer.body, {
    status: answer.status,
    headers: { ...headers, ...answer.headers, "idempotent-replayed": "true" },
  });
}

/** Whether a client takes gzip: named in Accept-Encoding (or `*`) and not refused with q=0. */
export function acceptsGzip(request: Request): boolean {
  const header = request.headers.get("accept-encoding") ?? "";
  return header.split(",").some((part) => {
    const [coding = "", ...parameters] = part.trim().toLowerCase().split(";");
    const q = parameters.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return (coding === "gzip" || coding === "*") && (q === undefined || Number(q.slice(2)) > 0);
  });
}

/**
 * A document that never changes while the process runs (the OpenAPI description, the docs page), with
 * its gzip made once: sent compressed to a client that takes gzip, as it is to any other.
 */
export function fixedDocument(body: string, headers: Record<string, string>): (request: Request) => Response {
  const gzipped = Bun.gzipSync(body);
  const common = { ...headers, vary: "accept-encoding" };
  return (request) =>
    acceptsGzip(request)
      ? new Response(gzipped, { headers: { ...common, "content-encoding": "gzip" } })
      : new Response(body, { headers: common });
}
