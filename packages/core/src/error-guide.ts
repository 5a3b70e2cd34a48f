// What each error code means to the customer who receives it, what to do about it and whether sending
// the same request again can succeed. Keyed by ErrorCode, so a code added to errors.ts fails to compile
// until it is explained; /docs renders this table.
import type { ErrorCode } from "./errors.ts";

export interface ErrorGuide {
  meaning: string;
  action: string;
  /** Whether the same request, sent again unchanged, can succeed. */
  retry: "no" | "after Retry-After" | "after adding credits" | "yes, with backoff";
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
      "The balance (details.reason balance) or the key's own limit (key_limit) does not cover this request's cost.",
    action:
      "Add credits (help_url), ask for less (details.fits is the largest request covered now), or use another key.",
    retry: "after adding credits",
  },
  endpoint_not_found: {
    meaning: "No such endpoint, or the user, tweet, list or community asked for does not exist.",
    action: "Check the path and the id or username.",
    retry: "no",
  },
  request_in_progress: {
    meaning: "A request with the same Idempotency-Key is still being answered.",
    action: "Wait the Retry-After header's seconds and send it again: you get the first request's answer.",
    retry: "after Retry-After",
  },
  rate_limited: {
    meaning: "The key sent more requests than its rate allows.",
    action: "Wait the Retry-After header's seconds; spread requests out.",
    retry: "after Retry-After",
  },
  internal_error: {
    meaning: "A fault of ours; the request was not charged.",
    action: "Send it again later; if it persists, report the request_id.",
    retry: "yes, with backoff",
  },
  service_unavailable: {
    meaning: "The service is briefly unable to answer (busy or in maintenance); not charged.",
    action: "Wait the Retry-After header's seconds and send it again.",
    retry: "after Retry-After",
  },
};
