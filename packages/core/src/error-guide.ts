// What each error code means to the customer who receives it, what to do about it and whether sending
// the same request again can succeed. Keyed by ErrorCode, so a code added to errors.ts fails to compile
// until it is explained; /docs renders this table and the OpenAPI description words each status from it.
import { ERROR_STATUS, type ErrorCode } from "./errors.ts";

export interface ErrorGuide {
  meaning: string;
  action: string;
  /** Whether the same request, sent again unchanged, can succeed. */
  retry: "no" | "after Retry-After" | "after adding credits" | "after closing a stream" | "yes, with backoff";
}

export const ERROR_GUIDE: Readonly<Record<ErrorCode, ErrorGuide>> = {
  invalid_request: {
    meaning: "A parameter broke a rule; details name the parameter and the rule.",
    action: "Fix the parameter that details name, then send the request again.",
    retry: "no",
  },
  invalid_api_key: {
    meaning: "The key is missing, unknown or expired (the message says when it expired).",
    action: "Send Authorization: Bearer with a key from the dashboard, or create a new key.",
    retry: "no",
  },
  revoked_api_key: {
    meaning: "The key was revoked.",
    action: "Use another key of the account, or create one in the dashboard.",
    retry: "no",
  },
  insufficient_credits: {
    meaning:
      "The balance (details.reason balance) or the key's own limit (key_limit) does not cover this request's cost; details also give required, remaining and, for key_limit, the key's limit.",
    action:
      "Add credits, or for key_limit raise the key's limit (help_url: the billing page, or the key's own page), ask for less (details.fits is the largest request covered now), or use another key.",
    retry: "after adding credits",
  },
  endpoint_not_found: {
    meaning: "No such endpoint, or the user, tweet, list or community asked for does not exist.",
    action: "Check the path and the id or username.",
    retry: "no",
  },
  request_in_progress: {
    meaning:
      "A request with the same Idempotency-Key is still being answered, or a retry took the key over after this request had run for a minute.",
    action: "Wait the Retry-After header's seconds and send it again: you get the first request's answer.",
    retry: "after Retry-After",
  },
  monitor_delivers_by_webhook: {
    meaning: "The monitor delivers its matches by webhook, to its URL: polls, streams and MCP reads do not serve them.",
    action:
      'Read the deliveries at the webhook\'s URL, or change the monitor\'s delivery to {"type":"pull"} with PATCH /v1/monitors/{id}.',
    retry: "no",
  },
  rate_limited: {
    meaning: "The key sent more requests than its rate allows.",
    action: "Wait the Retry-After header's seconds; spread requests out.",
    retry: "after Retry-After",
  },
  too_many_streams: {
    meaning: "The account holds as many monitor streams open as it may at once.",
    action: "Close another stream of the account (or let it end), then open this one again.",
    retry: "after closing a stream",
  },
  internal_error: {
    meaning: "A fault of ours.",
    action: "Send it again later; if it persists, report the request_id.",
    retry: "yes, with backoff",
  },
  service_unavailable: {
    meaning: "The service is briefly unable to answer (busy or in maintenance).",
    action: "Wait the Retry-After header's seconds and send it again.",
    retry: "after Retry-After",
  },
};

/** What the codes a status stands for mean and what to do about them, for the OpenAPI description. */
export function describeErrorStatus(status: number): string {
  const codes = (Object.keys(ERROR_GUIDE) as ErrorCode[]).filter((code) => ERROR_STATUS[code] === status);
  const each = codes.map((code) => `${code}: ${ERROR_GUIDE[code].meaning} ${ERROR_GUIDE[code].action}`);
  return `${each.join(" ")} Never charged.`;
}
