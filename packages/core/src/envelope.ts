// The /v1 success envelope and the error envelope shared by every surface. The error layout is not
// shown in SPEC.md; it follows the common `{"error": {code, message, ...}}` shape of the best-known
// paid APIs, with the request id inside so a support request can quote it.
import * as v from "valibot";
import { type ApiError, type CreditRefusal, ERROR_STATUS, type ErrorDetail } from "./errors.ts";
import { JsonText } from "./json-text.ts";

export interface Credits {
  charged: number;
  remaining: number;
  /** max_credits lowered the most items this request could return. */
  capped?: true;
  /** A dry run's quote: the most the request can cost, and the rule that prices it. */
  max?: number;
  rule?: string;
}

export interface SuccessEnvelope<T> {
  data: T;
  meta: {
    request_id: string;
    credits: Credits;
    pagination?: { next_token: string };
    dry_run?: true;
  };
}

export function successEnvelope<T>(
  data: T,
  requestId: string,
  credits: Credits,
  nextToken?: string,
  dryRun?: true,
): SuccessEnvelope<T> {
  return {
    data,
    meta: {
      request_id: requestId,
      credits,
      ...(nextToken === undefined ? {} : { pagination: { next_token: nextToken } }),
      ...(dryRun ? { dry_run: true } : {}),
    },
  };
}

/**
 * The success envelope as JSON text. Data that is JsonText goes in as it is, without being parsed;
 * the bytes are those JSON.stringify writes for the same envelope.
 */
export function successEnvelopeText(
  data: unknown,
  requestId: string,
  credits: Credits,
  nextToken?: string,
  dryRun?: true,
): string {
  const envelope = successEnvelope(data, requestId, credits, nextToken, dryRun);
  if (!(data instanceof JsonText)) return JSON.stringify(envelope);
  return `{"data":${data.text},"meta":${JSON.stringify(envelope.meta)}}`;
}

export interface ErrorBody {
  code: ApiError["code"];
  message: string;
  request_id: string;
  /** 400: the violated rules, by parameter; 402: the numbers of the refusal. */
  details?: ErrorDetail[] | CreditRefusal;
  help_url?: string;
}

export interface ErrorEnvelope {
  error: ErrorBody;
}

/** Where a 402 sends people to act: the billing page, or the dashboard page of the key whose own limit refused. */
export interface HelpLinks {
  billing: string;
  key: (keyId: string) => string;
}

/** A key's page in the dashboard, where its name, limit and expiry change: the one a key-limit 402 names. */
export function keyPagePath(keyId: string): string {
  return `/dashboard/keys/${encodeURIComponent(keyId)}`;
}

/** The help links of a server at `publicUrl`. */
export function helpLinksOf(publicUrl: string): HelpLinks {
  return {
    billing: `${publicUrl}/billing`,
    key: (keyId) => `${publicUrl}${keyPagePath(keyId)}`,
  };
}

/** A 402's help_url: the page of the key whose limit refused, else the billing page. */
function helpUrlOf(error: ApiError, links: HelpLinks): string {
  return error.credits?.reason === "key_limit" && error.keyId !== undefined ? links.key(error.keyId) : links.billing;
}

export function errorEnvelope(error: ApiError, requestId: string, links: HelpLinks): ErrorEnvelope {
  return {
    error: {
      code: error.code,
      message: error.message,
      request_id: requestId,
      ...(error.details ? { details: error.details } : error.credits ? { details: error.credits } : {}),
      ...(error.code === "insufficient_credits" ? { help_url: helpUrlOf(error, links) } : {}),
    },
  };
}

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));

const ChargedCredits = v.strictObject({ charged: Count, remaining: Count, capped: v.exactOptional(v.literal(true)) });

export function successEnvelopeSchema<T extends v.GenericSchema>(data: T) {
  return v.strictObject({
    data,
    meta: v.strictObject({
      request_id: v.string(),
      credits: ChargedCredits,
      pagination: v.exactOptional(v.strictObject({ next_token: v.pipe(v.string(), v.minLength(1)) })),
    }),
  });
}

/** The answer to dry_run=true: no data, nothing charged, and the quote. */
export const DryRunEnvelopeSchema = v.strictObject({
  data: v.null(),
  meta: v.strictObject({
    request_id: v.string(),
    credits: v.strictObject({
      charged: v.literal(0),
      remaining: Count,
      capped: v.exactOptional(v.literal(true)),
      max: v.pipe(Count, v.description("The most this request can cost")),
      rule: v.pipe(v.string(), v.description("How its cost is counted")),
    }),
    dry_run: v.literal(true),
  }),
});

export const ErrorEnvelopeSchema = v.strictObject({
  error: v.strictObject({
    code: v.picklist(Object.keys(ERROR_STATUS) as (keyof typeof ERROR_STATUS)[]),
    message: v.string(),
    request_id: v.string(),
    details: v.exactOptional(
      v.union([
        v.array(
          v.strictObject({
            parameter: v.exactOptional(v.string()),
            message: v.string(),
            minimum: v.exactOptional(Count),
          }),
        ),
        v.strictObject({
          reason: v.picklist(["balance", "key_limit"]),
          required: Count,
          remaining: Count,
          limit: v.exactOptional(v.strictObject({ credits: Count, per: v.picklist(["total", "day"]) })),
          fits: v.exactOptional(v.record(v.string(), Count)),
        }),
      ]),
    ),
    help_url: v.exactOptional(v.pipe(v.string(), v.url())),
  }),
});

/** The headers of every failure: its request id, and Retry-After when waiting will help. */
export function errorHeaders(
  error: ApiError,
  requestId: string,
  headers: Record<string, string> = {},
): Record<string, string> {
  const retry: Record<string, string> =
    error.retryAfter === undefined ? {} : { "retry-after": String(error.retryAfter) };
  return { "x-request-id": requestId, ...retry, ...headers };
}
