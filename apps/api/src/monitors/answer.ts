// What every /v1/monitors route shares: the pipeline's admission (key, rate limit, request log) around
// a route's work, the envelope and headers of its answer, and its query checked against a schema.
import {
  type ActiveKey,
  admitted,
  bearerKey,
  type Credits,
  calledAs,
  decodeParams,
  type HelpLinks,
  type MonitorEndpoint,
  numericParams,
  type ParamsSchema,
  parseWith,
  type RateState,
  rateHeaders,
  rateLimitError,
  requestTarget,
  type Services,
  successEnvelopeText,
} from "@social/core";
import type * as v from "valibot";
import type { RequestUsage } from "../http/request-log.ts";
import { errorResponse, jsonText } from "../http/respond.ts";

/** What a route reads of the request's context (the http-context plugin derives it). */
export interface Caller {
  request: Request;
  requestId: string;
  receivedAt: number;
  usage: RequestUsage;
  anonymousRate: () => Promise<RateState>;
  services: Services;
  helpLinks: HelpLinks;
}

export type Admission<T> = { ok: true; value: T; key: ActiveKey; rate: RateState } | { ok: false; response: Response };

/** The headers of every monitor answer: private to the account, so no cache may keep one. */
export function answerHeaders(caller: Caller, rate: RateState): Record<string, string> {
  return { "x-request-id": caller.requestId, "cache-control": "no-store", ...rateHeaders(rate) };
}

/**
 * Authenticates the request's key, counts it against its rate limit, then runs `work`: the failure is the
 * error envelope, and an answer that `charged` nothing goes to the request log (a charge's usage row is
 * its entry).
 */
export async function admit<T>(
  caller: Caller,
  endpoint: MonitorEndpoint,
  work: (key: ActiveKey) => Promise<T>,
  charged: (value: T) => number = () => 0,
): Promise<Admission<T>> {
  const { request, requestId, services } = caller;
  const outcome = await admitted(
    services,
    bearerKey(request),
    undefined,
    async (key, rate) => ({ ok: true as const, value: await work(key), key, rate }),
    {
      requestId,
      endpoint,
      call: calledAs(request.url),
      receivedAt: caller.receivedAt,
      charged: (result) => charged(result.value) > 0,
    },
  );
  if (outcome.ok) return outcome;
  const rate = outcome.rate ?? (await caller.anonymousRate());
  const error = rate.allowed ? outcome.error : rateLimitError(rate);
  return { ok: false, response: errorResponse(error, requestId, caller.helpLinks, answerHeaders(caller, rate)) };
}

/** A route's answer in the envelope, charged nothing unless `work` says what it charged. */
export async function answer(
  caller: Caller,
  endpoint: MonitorEndpoint,
  work: (key: ActiveKey) => Promise<{ data: unknown; credits?: Credits; status?: number }>,
): Promise<Response> {
  const admission = await admit(caller, endpoint, work, (value) => value.credits?.charged ?? 0);
  if (!admission.ok) return admission.response;
  const { value, key, rate } = admission;
  const credits = value.credits ?? { charged: 0, remaining: key.balance };
  caller.usage.credits = credits.charged;
  const body = successEnvelopeText(value.data, caller.requestId, credits);
  return jsonText(body, value.status ?? 200, answerHeaders(caller, rate));
}

/** The request's query, checked against `schema` (numbers decoded); an invalid_request names each fault. */
export function queryParams<S extends ParamsSchema>(request: Request, schema: S): v.InferOutput<S> {
  const { values, repeated } = decodeParams(requestTarget(request.url).query, numericParams(schema));
  return parseWith(schema, values, repeated) as v.InferOutput<S>;
}
