// The closed set of error codes of SPEC.md's error table and the one status each maps to. Every
// surface (HTTP /v1, /2, MCP) raises ApiError and renders it; nothing else decides a status.
import type { KeyLimit } from "./ports/ledger.ts";

export const ERROR_STATUS = {
  invalid_request: 400,
  invalid_api_key: 401,
  revoked_api_key: 401,
  insufficient_credits: 402,
  endpoint_not_found: 404,
  // Not in SPEC.md's table: a retry with an Idempotency-Key whose first request is still running.
  request_in_progress: 409,
  // Not in SPEC.md's table: a poll, stream or MCP read of a monitor that delivers by webhook.
  monitor_delivers_by_webhook: 409,
  rate_limited: 429,
  // Not in SPEC.md's table: a monitor stream past the most an account may hold open at once.
  too_many_streams: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** One violated rule of a request, named by the parameter it concerns. */
export interface ErrorDetail {
  parameter?: string;
  message: string;
  /** A max_credits below the smallest answer's cost: that cost, the lowest cap this request accepts. */
  minimum?: number;
}

export interface ApiErrorOptions {
  details?: ErrorDetail[];
  /** Seconds until the request may be retried (Retry-After): a rate limit, a database away or busy. */
  retryAfter?: number;
  /** Why a 402 refused the request, in numbers a program can act on. */
  credits?: CreditRefusal;
  /** The key whose own limit refused: its dashboard page is where the 402 sends people (help_url). */
  keyId?: string;
}

/**
 * A 402's `details`: whose credits fell short (the account's balance, or the key's own limit, then
 * named), what the request needed, what was left, and the largest request that fits now.
 */
export interface CreditRefusal {
  reason: "balance" | "key_limit";
  required: number;
  remaining: number;
  limit?: KeyLimit;
  /** A smaller version of the request the balance covers now (`{ limit: 2 }`, `{ ids: 3 }`); absent when none does. */
  fits?: Record<string, number>;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: ErrorDetail[];
  readonly retryAfter?: number;
  readonly credits?: CreditRefusal;
  readonly keyId?: string;

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = ERROR_STATUS[code];
    if (options.details) this.details = options.details;
    if (options.retryAfter !== undefined) this.retryAfter = options.retryAfter;
    if (options.credits) this.credits = options.credits;
    if (options.keyId !== undefined) this.keyId = options.keyId;
  }
}

export function notFound(message: string): ApiError {
  return new ApiError("endpoint_not_found", message);
}

export function invalidRequest(message: string, details?: ErrorDetail[]): ApiError {
  return new ApiError("invalid_request", message, details ? { details } : {});
}

/**
 * A genuine page token sent with other arguments than the request that returned it: said apart from a
 * broken one, because the fix differs (repeat the arguments, not the token).
 */
export function changedPageArguments(): ApiError {
  const message =
    "was returned for a request with other arguments: send it with that request's arguments, or leave it out to start over";
  return invalidRequest(`Invalid request: next_token ${message}`, [{ parameter: "next_token", message }]);
}

/**
 * A next_token that was not issued for this request. Also what a store answers for a cursor that does
 * not fit its endpoint (a forged token with a valid signature): the client's input, so a 400.
 */
export function invalidPageToken(): ApiError {
  return invalidRequest("next_token is invalid: pass the next_token of the previous page unchanged", [
    { parameter: "next_token", message: "not a token issued for this request" },
  ]);
}
