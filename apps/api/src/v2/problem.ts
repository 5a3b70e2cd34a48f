// /2 error bodies: this service's error object (the same as on /v1, so one client can handle both) and
// X API v2's RFC 7807 members, so code written for X reads the failure as it would there.
import type { ApiError, ErrorCode, HelpLinks } from "@social/core";
import { errorEnvelope, errorHeaders } from "@social/core";
import { json } from "../http/respond.ts";

const PROBLEM_BASE = "https://api.twitter.com/2/problems/";

// 401 and 429 carry type about:blank, as X API v2 answers them.
const PROBLEMS: Record<ErrorCode, { type: string; title: string }> = {
  invalid_request: { type: `${PROBLEM_BASE}invalid-request`, title: "Invalid Request" },
  invalid_api_key: { type: "about:blank", title: "Unauthorized" },
  revoked_api_key: { type: "about:blank", title: "Unauthorized" },
  insufficient_credits: { type: `${PROBLEM_BASE}usage-capped`, title: "Payment Required" },
  endpoint_not_found: { type: `${PROBLEM_BASE}resource-not-found`, title: "Not Found Error" },
  request_in_progress: { type: "about:blank", title: "Conflict" },
  monitor_delivers_by_webhook: { type: "about:blank", title: "Conflict" },
  rate_limited: { type: "about:blank", title: "Too Many Requests" },
  too_many_streams: { type: "about:blank", title: "Too Many Requests" },
  internal_error: { type: "about:blank", title: "Internal Server Error" },
  service_unavailable: { type: "about:blank", title: "Service Unavailable" },
};

/** The raw values a request gave a parameter (path or query), for X API v2's `errors[].parameters`. */
export type RawValues = (parameter: string) => string[];

function problemErrors(error: ApiError, rawValues: RawValues) {
  if (error.code !== "invalid_request" || !error.details) return [{ message: error.message }];
  return error.details.map((detail) =>
    detail.parameter
      ? {
          parameters: { [detail.parameter]: rawValues(detail.parameter) },
          message: `The \`${detail.parameter}\` query parameter ${detail.message}`,
        }
      : { parameters: {}, message: detail.message },
  );
}

/**
 * Every /2 error body carries `errors`, even where X API v2 leaves it out: twitter-api-v2 rewrites a
 * body that has an `error` member but no `errors` into a v1-style error, which would hide the problem.
 */
export function problemBody(error: ApiError, requestId: string, helpLinks: HelpLinks, rawValues: RawValues) {
  const problem = PROBLEMS[error.code];
  return {
    ...errorEnvelope(error, requestId, helpLinks),
    title: problem.title,
    detail: error.message,
    type: problem.type,
    status: error.status,
    errors: problemErrors(error, rawValues),
  };
}

export function problemResponse(
  error: ApiError,
  requestId: string,
  helpLinks: HelpLinks,
  rawValues: RawValues,
  headers: Record<string, string> = {},
): Response {
  return json(
    problemBody(error, requestId, helpLinks, rawValues),
    error.status,
    errorHeaders(error, requestId, headers),
  );
}
