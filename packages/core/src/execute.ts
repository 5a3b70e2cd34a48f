// The one request pipeline every surface runs: authenticate → rate limit → validate → read → charge.
// Failures before the charge leave the ledger untouched, and the charge is a single ledger debit that
// either covers the whole cost or refuses the request, so a failed request is never billed.
import * as v from "valibot";
import { type CostRule, costOf, costRuleFor } from "./billing/costs.ts";
import { type FewerItems, fewerItemsOf, insufficientCredits, shortfallOf } from "./billing/credit-refusal.ts";
import { quoteOf, withinCap } from "./billing/request-budget.ts";
import { type Endpoint, maxItemsOf, type ParamsSchema, type ReadResult } from "./endpoint.ts";
import type { Credits } from "./envelope.ts";
import { ApiError, type ErrorDetail, invalidRequest } from "./errors.ts";
import { claimIdempotencyKey, idempotencyKeyOf, idempotencyTakenOver, requestFingerprint } from "./idempotency.ts";
import { LedgerError } from "./ledger-errors.ts";
import { refundIfLost } from "./lost-answers.ts";
import { canonicalEntries } from "./params.ts";
import type { Accounts } from "./ports/accounts.ts";
import type { IdempotencyRecords, StoredAnswer } from "./ports/idempotency.ts";
import type { KeyCheck, Ledger } from "./ports/ledger.ts";
import type { RateLimiter, RateState } from "./ports/rate-limiter.ts";
import { CLIENT_CLOSED_STATUS, type RequestLog } from "./ports/request-log.ts";
import type { Cursor, PageRequest, Store } from "./ports/store.ts";
import { rateLimitError } from "./ratelimit.ts";
import { isWellFormedApiKey } from "./request.ts";
import { ControlsSchema, type RequestControls } from "./request-controls.ts";
import type { TokenCodec } from "./tokens.ts";

/**
 * What the charged pipeline needs; `idempotency` only for requests that send an Idempotency-Key, and
 * `requestLog` where uncharged answers are logged (REQUEST_LOG_DAYS=0 turns it off).
 */
export interface ReadServices {
  store: Store;
  ledger: Ledger;
  tokens: TokenCodec;
  limiter: RateLimiter;
  idempotency?: IdempotencyRecords;
  requestLog?: RequestLog;
}

/** Every surface's services: the pipeline's, and the accounts behind the free account reads. */
export type ActiveKey = Extract<KeyCheck, { status: "active" }>;

export interface Services extends ReadServices {
  accounts: Accounts;
  idempotency: IdempotencyRecords;
}

/**
 * What a surface reads after the endpoint's read and before the charge (the /2 layer's author
 * expansions), so that it is part of the request: a failure there leaves the request uncharged.
 */
export type Enrichment<X> = (store: Store, data: unknown) => Promise<X>;

export interface ReadRequest<X = undefined> {
  endpoint: Endpoint;
  /** Decoded parameters (path and query together); see decodeParams. */
  params: Record<string, unknown>;
  /**
   * A surface's own schema for `params` (the /2 query), whose output is the endpoint's parameters;
   * by default the endpoint's.
   */
  paramsSchema?: ParamsSchema;
  enrich?: Enrichment<X>;
  /** Parameters that were given more than once. */
  repeated?: readonly string[];
  /** The request controls (max_credits, dry_run; see request-controls.ts), decoded, apart from `params`. */
  controls?: Record<string, unknown>;
  apiKey: string | undefined;
  requestId: string;
  /** performance.now() when the request arrived, for the request log's duration; the pipeline's start when absent. */
  receivedAt?: number;
  /**
   * The status the surface answers a refusal with, when it is not the error's own (/2 answers a missing
   * id with 200 and `errors`), so that the request log shows what the client got.
   */
  answeredAs?: (error: ApiError) => number;
  /** A surface's own page size (the /2 layer's max_results), overriding the endpoint's. */
  pageSize?: number;
  /** The most an answer may hold as the surface renders it (MCP's output budget); see OutputLimit. */
  outputLimit?: OutputLimit;
  /**
   * How a 402 names a smaller request in the surface's own parameters (the /2 layer's max_results);
   * by default the endpoint's, unless `paramsSchema` gives the caller other names.
   */
  fewerItems?: FewerItems;
  /**
   * Aborted when the answer cannot reach the client (it closed the connection, the answer could not be
   * written). The read is then not charged, and a charge already made is refunded, also when it aborts
   * after the pipeline returned: a surface aborts it only for an answer its client did not get.
   */
  signal?: AbortSignal;
  /** This request's rate-limit state when its surface already counted it (MCP counts each POST once). */
  rate?: RateState;
  /**
   * The caller's Idempotency-Key, as sent (the pipeline checks it), and the surface that will store the
   * answer: a replay must be the same kind of answer as the first one. `shaping` holds what else the
   * surface lets a caller choose about the answer (MCP's view), which a replay must match too.
   */
  idempotency?: { key: unknown; surface: "v1" | "v2" | "mcp"; shaping?: Record<string, unknown> };
}

/**
 * A bound on an answer's size as its surface renders it: a read whose data measures more than `max` is
 * read again with fewer items (its next_token resuming right after the last one returned) and charged
 * for those.
 */
export interface OutputLimit {
  size: (data: unknown) => number;
  max: number;
}

export interface ReadSuccess<X = undefined> {
  ok: true;
  /** null for a dry run, which reads nothing: its credits hold the quote. */
  data: unknown;
  /** What the request's `enrich` read. */
  enriched: X;
  credits: Credits;
  /** Set when the request was dry_run=true: nothing was read or charged. */
  dryRun?: true;
  /** The most items the read was allowed: fewer than asked when max_credits or the output limit cut it. */
  maxItems: number;
  /** Set when the output limit cut the read to fewer items than it could return. */
  shortened?: true;
  /** An Idempotency-Key retry: the first request's answer, to send again as it is. Nothing was read. */
  replay?: StoredAnswer;
  /** With an Idempotency-Key: stores the answer for retries; the surface calls it before sending. */
  remember?: (answer: StoredAnswer) => Promise<void>;
  nextToken?: string;
  rate: RateState;
}

export interface ReadFailure {
  ok: false;
  error: ApiError;
  /** Present once the key was authenticated, so rate-limit headers can go on the answer. */
  rate?: RateState;
  /** Present once the key was authenticated: nothing charged, and the balance it had then. */
  credits?: { charged: 0; remaining: number };
}

export type ReadOutcome<X = undefined> = ReadSuccess<X> | ReadFailure;

const encoder = new TextEncoder();
/** Parameters that do not change what a page holds, so a token stays valid when they change. */
const UNBOUND_PARAMS = new Set(["next_token", "limit"]);

/**
 * Recently seen keys → their digests: a digest never changes, and it costs more than the rest of auth.
 * Only well-formed keys (40 characters) reach it, so its 10,000 entries hold at most about 2 MB.
 */
const digestCache = new Map<string, string>();
const DIGEST_CACHE_SIZE = 10_000;

export async function hashApiKey(apiKey: string): Promise<string> {
  const cached = digestCache.get(apiKey);
  if (cached) return cached;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(apiKey)));
  const hex = Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
  // Bounded, so a flood of made-up keys cannot grow it; it simply starts over.
  if (digestCache.size >= DIGEST_CACHE_SIZE) digestCache.clear();
  digestCache.set(apiKey, hex);
  return hex;
}

/** The validated parameters a pagination token is bound to, in a canonical text form. */
export function tokenBinding(params: Record<string, unknown>): string {
  return JSON.stringify(canonicalEntries(params, UNBOUND_PARAMS));
}

function issueDetails(issues: readonly v.BaseIssue<unknown>[]): ErrorDetail[] {
  return issues.map((issue) => {
    const parameter = issue.path?.map((item) => String(item.key)).join(".");
    return parameter ? { parameter, message: issue.message } : { message: issue.message };
  });
}

export function validationError(details: readonly ErrorDetail[]): ApiError {
  const summary = details.map((d) => (d.parameter ? `${d.parameter} ${d.message}` : d.message)).join("; ");
  return invalidRequest(`Invalid request: ${summary}`, [...details]);
}

/** Validates decoded parameters against an endpoint's schema; invalid_request names each broken rule. */
export function validateParams(
  endpoint: Endpoint,
  params: Record<string, unknown>,
  repeated: readonly string[] = [],
): Record<string, unknown> {
  return parseWith(endpoint.params, params, repeated);
}

/** Validates decoded parameters against a parameters schema; invalid_request names each broken rule. */
export function parseWith(
  schema: ParamsSchema,
  params: Record<string, unknown>,
  repeated: readonly string[] = [],
): Record<string, unknown> {
  return parseParams(schema, params, repeated).params;
}

function parseParams(
  schema: ParamsSchema,
  params: Record<string, unknown>,
  repeated: readonly string[],
  controls: Record<string, unknown> = {},
): { params: Record<string, unknown>; controls: RequestControls } {
  const repeatedDetails = repeated.map((name) => ({ parameter: name, message: "must be given only once" }));
  const result = v.safeParse(schema, params, { abortPipeEarly: true });
  const parsedControls = v.safeParse(ControlsSchema, controls, { abortPipeEarly: true });
  const details = [
    ...repeatedDetails,
    ...(result.success ? [] : issueDetails(result.issues)),
    ...(parsedControls.success ? [] : issueDetails(parsedControls.issues)),
  ];
  if (details.length > 0 || !result.success || !parsedControls.success) throw validationError(details);
  return { params: result.output as Record<string, unknown>, controls: parsedControls.output };
}

/**
 * Runs an endpoint's read for already validated parameters, unbilled (the demo uses it directly), at
 * most `maxItems` items: by default all the entry returns at this page size.
 */
export function runRead(
  endpoint: Endpoint,
  store: Store,
  params: Record<string, unknown>,
  page: PageRequest = { size: 0 },
  maxItems = maxItemsOf(endpoint, params, page.size),
): Promise<ReadResult<unknown>> {
  return endpoint.run({ store, params, page, maxItems });
}

/**
 * Refusals whose request was charged and then refunded (its client went away after the debit): their
 * usage row, refunded, is their entry in the request log, so they are not logged again.
 */
const loggedAsRefund = new WeakSet<ApiError>();

/** No client will read this answer; the error only closes the pipeline's books (logged, never sent). */
function clientGone(): ApiError {
  return new ApiError("invalid_request", "The client closed the connection before the answer was sent");
}

function revokedKey(): ApiError {
  return new ApiError("revoked_api_key", "This API key has been revoked: create a new one in the dashboard");
}

function expiredKey(expiresAt: number): ApiError {
  const when = new Date(expiresAt).toISOString();
  return new ApiError("invalid_api_key", `This API key expired at ${when}: create a new one in the dashboard`);
}

/** The 401 of a key that cannot be used now (unknown, revoked or expired); none for a usable one. */
export function refusedKey(check: Exclude<KeyCheck, { status: "active" }>): ApiError;
export function refusedKey(check: KeyCheck): ApiError | undefined;
export function refusedKey(check: KeyCheck): ApiError | undefined {
  switch (check.status) {
    case "unknown":
      return new ApiError("invalid_api_key", "Invalid API key");
    case "revoked":
      return revokedKey();
    case "active":
      // The clock decides, not the check: a check kept in memory does not know the time has come.
      return check.expiresAt !== undefined && check.expiresAt <= Date.now() ? expiredKey(check.expiresAt) : undefined;
  }
}

/** The active key of a request, or the 401 that refuses it. */
export async function authenticate(ledger: Ledger, apiKey: string | undefined) {
  if (!apiKey)
    throw new ApiError("invalid_api_key", "Missing API key: send the header Authorization: Bearer <API_KEY>");
  // Refused before hashing or caching: a made-up token of any length costs nothing to turn away.
  if (!isWellFormedApiKey(apiKey)) {
    throw new ApiError("invalid_api_key", "Invalid API key: keys are sk_live_ followed by 32 letters and digits");
  }
  const check = await ledger.checkKey(await hashApiKey(apiKey));
  if (check.status !== "active") throw refusedKey(check);
  const expired = refusedKey(check);
  if (expired) throw expired;
  return check;
}

/** The items a read's cost counts: the entry's count of its data, or the count that came with its JSON text. */
function countedItems(endpoint: Endpoint, result: ReadResult<unknown>): number {
  return "count" in result ? result.count : endpoint.counted(result.data);
}

/** What a request's entry in the request log says besides its outcome (see request-log.ts). */
export interface LoggedAs<T> {
  requestId: string;
  endpoint: string;
  /** performance.now() when the request arrived. */
  receivedAt: number;
  /** Aborted when the client went away: its answer is logged as never delivered. */
  signal?: AbortSignal;
  /** Whether a result was charged: its usage row is its log entry, so it is not appended. */
  charged: (result: T) => boolean;
  /** The status the client gets for a refusal, when its surface answers it otherwise than the error's own. */
  answeredAs?: (error: ApiError) => number;
}

/**
 * The steps every request of a key takes first: authenticate it, count it against its rate limit, then
 * run `body`. An ApiError from any step is the failure outcome, with the rate state and the balance once
 * the key is known. Once the key is known, an answer that charged nothing goes to the request log.
 */
export async function admitted<T>(
  services: Pick<ReadServices, "ledger" | "limiter" | "requestLog">,
  apiKey: string | undefined,
  counted: RateState | undefined,
  body: (key: ActiveKey, rate: RateState) => Promise<T>,
  logged?: LoggedAs<T>,
): Promise<T | ReadFailure> {
  let authenticated: Pick<ReadFailure, "rate" | "credits"> = {};
  let caller: ActiveKey | undefined;
  const log = (status: number, errorCode: string | null) => {
    if (!caller || !logged || !services.requestLog) return;
    const gone = logged.signal?.aborted === true;
    services.requestLog.append({
      requestId: logged.requestId,
      accountId: caller.accountId,
      keyId: caller.keyId,
      endpoint: logged.endpoint,
      status: gone ? CLIENT_CLOSED_STATUS : status,
      errorCode: gone ? null : errorCode,
      durationMs: Math.round(performance.now() - logged.receivedAt),
      createdAt: Date.now(),
    });
  };
  try {
    const key = await authenticate(services.ledger, apiKey);
    caller = key;
    const rate = counted ?? (await services.limiter.take(key.keyId));
    authenticated = { rate, credits: { charged: 0, remaining: key.balance } };
    if (!rate.allowed) throw rateLimitError(rate);
    const result = await body(key, rate);
    if (logged && !logged.charged(result)) log(200, null);
    return result;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (!loggedAsRefund.has(error)) log(logged?.answeredAs?.(error) ?? error.status, error.code);
    return { ok: false, error, ...authenticated };
  }
}

export function executeRead(services: ReadServices, request: ReadRequest): Promise<ReadOutcome>;
export function executeRead<X>(
  services: ReadServices,
  request: ReadRequest<X> & { enrich: Enrichment<X> },
): Promise<ReadOutcome<X>>;
export function executeRead(services: ReadServices, request: ReadRequest<unknown>): Promise<ReadOutcome<unknown>> {
  const receivedAt = request.receivedAt ?? performance.now();
  const logged: LoggedAs<ReadSuccess<unknown>> = {
    requestId: request.requestId,
    endpoint: request.endpoint.id,
    receivedAt,
    ...(request.signal ? { signal: request.signal } : {}),
    ...(request.answeredAs ? { answeredAs: request.answeredAs } : {}),
    charged: (result) => !result.dryRun && !result.replay,
  };
  const timed = { ...request, receivedAt };
  return admitted(
    services,
    request.apiKey,
    request.rate,
    async (key, rate): Promise<ReadSuccess<unknown>> => {
      const prepared = await prepare(services, request, key);
      const idempotencyKey = idempotencyKeyOf(request.idempotency?.key);
      if (prepared.controls.dry_run) {
        const { rule, maxItems, capped } = prepared;
        const credits = { charged: 0, remaining: key.balance, ...capped, ...quoteOf(rule, maxItems) };
        return { ok: true, data: null, enriched: undefined, credits, dryRun: true, maxItems, rate };
      }
      const records = services.idempotency;
      if (!request.idempotency || idempotencyKey === undefined || !records) {
        return await readAndCharge(services, timed, prepared, rate, undefined);
      }
      const scope = { accountId: key.accountId, key: idempotencyKey };
      const operation = `${request.idempotency.surface} ${request.endpoint.id}`;
      const { params, controls } = request;
      const fingerprint = requestFingerprint(operation, { ...params, ...controls, ...request.idempotency.shaping });
      const refund = (accountId: string, requestId: string) => services.ledger.refund(accountId, requestId);
      const replay = await claimIdempotencyKey(records, refund, scope, fingerprint, request.requestId);
      if (replay) {
        const credits = { charged: 0, remaining: key.balance };
        return { ok: true, data: null, enriched: undefined, credits, maxItems: prepared.maxItems, replay, rate };
      }
      // A request that ends without an answer gives the key up, so that a retry runs it afresh.
      try {
        const outcome = await readAndCharge(services, timed, prepared, rate, idempotencyKey);
        // The charge is made: the answer goes out even if it cannot be stored (the database went away
        // since the debit; the adapter has logged that). The key then stays reserved by this request, so
        // a retry waits, and past ABANDONED_AFTER_MS takes it over and gives this charge back: never two.
        const remember = (answer: StoredAnswer) =>
          records.complete(scope, request.requestId, answer, Date.now()).catch(reportUnstoredAnswer);
        return { ...outcome, remember };
      } catch (error) {
        await records.release(scope, request.requestId);
        throw error;
      }
    },
    logged,
  );
}

function reportUnstoredAnswer(error: unknown): void {
  if (error instanceof ApiError && error.code === "service_unavailable") return;
  console.error(JSON.stringify({ level: "error", kind: "idempotent_answer_not_stored", error: String(error) }));
}

/** A validated request, priced: what its read may return and what its cost is counted by. */
interface PreparedRead {
  key: ActiveKey;
  params: Record<string, unknown>;
  controls: RequestControls;
  binding: string;
  after: Cursor | undefined;
  rule: CostRule;
  size: number;
  maxItems: number;
  capped: { capped?: true };
}

async function prepare(services: ReadServices, request: ReadRequest<unknown>, key: ActiveKey): Promise<PreparedRead> {
  const { endpoint } = request;
  const { params, controls } = parseParams(
    request.paramsSchema ?? endpoint.params,
    request.params,
    request.repeated ?? [],
    request.controls,
  );
  const token = params.next_token;
  const binding = tokenBinding(params);
  const after = typeof token === "string" ? await services.tokens.verify(token, endpoint.id, binding) : undefined;
  const rule = costRuleFor(endpoint, params);
  const size = request.pageSize ?? endpoint.pageSize?.(params) ?? 0;
  const most = maxItemsOf(endpoint, params, size);
  const maxItems = withinCap(controls.max_credits, rule, most);
  const capped = maxItems < most ? { capped: true as const } : {};
  return { key, params, controls, binding, after, rule, size, maxItems, capped };
}

async function readAndCharge(
  services: ReadServices,
  request: ReadRequest<unknown>,
  prepared: PreparedRead,
  rate: RateState,
  idempotencyKey: string | undefined,
): Promise<ReadSuccess<unknown>> {
  const { endpoint } = request;
  const { key, params, controls, binding, after, rule, size, maxItems, capped } = prepared;
  // A key whose account (or own limit) cannot pay even the base cost gets its 402 without any work.
  const base = costOf(rule, 0);
  // A smaller request is named in the caller's parameters: the surface's, else the endpoint's own.
  const fewer = request.fewerItems ?? (request.paramsSchema ? undefined : fewerItemsOf(endpoint, params));
  const refused = fewer && { rule, fewer };
  const short = shortfallOf(key.balance, key.allowance, base);
  if (short) throw insufficientCredits(base, short, refused);
  const page = { size: Math.min(size, maxItems), owner: key.accountId, ...(after ? { after } : {}) };
  const read = (items: number) =>
    runRead(endpoint, services.store, params, { ...page, size: Math.min(size, items) }, items);
  const { result, items, shortened } = await withinOutputLimit(endpoint, read, maxItems, request.outputLimit);
  const enriched = await request.enrich?.(services.store, result.data);

  const cost = costOf(rule, countedItems(endpoint, result));
  // Every entry honours maxItems (the catalogue tests hold each to it); were one not to, the caller's
  // cap still holds: the answer is refused, uncharged, rather than billed above it.
  if (controls.max_credits !== undefined && cost > controls.max_credits) {
    throw new ApiError("internal_error", `${endpoint.id} returned more than max_credits covers`);
  }
  // Signed before the charge: nothing that can fail stands between the debit and the answer.
  const nextToken = result.next ? await services.tokens.sign(endpoint.id, binding, result.next) : undefined;
  if (request.signal?.aborted) throw clientGone();
  const usage = {
    requestId: request.requestId,
    keyId: key.keyId,
    endpoint: endpoint.id,
    credits: cost,
    ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
    ...(request.receivedAt === undefined ? {} : { durationMs: Math.round(performance.now() - request.receivedAt) }),
  };
  // A key revoked while its request was read is refused here, uncharged: the ledger checks it again.
  const debit = await services.ledger.debit(key.accountId, usage).catch((error: unknown) => {
    if (!(error instanceof LedgerError)) throw error;
    if (error.code === "revoked_key") throw revokedKey();
    // It expired while its request was being read: it is the clock that decides, not the check.
    if (error.code === "expired_key") throw expiredKey(key.expiresAt ?? Date.now());
    if (error.code === "idempotency_key_taken") throw idempotencyTakenOver();
    throw error;
  });
  if (!debit.ok) throw insufficientCredits(cost, debit, refused);
  if (request.signal?.aborted) {
    await services.ledger.refund(key.accountId, request.requestId);
    const gone = clientGone();
    loggedAsRefund.add(gone);
    throw gone;
  }
  // An answer stored for Idempotency-Key retries is not lost: a retry gets it again, uncharged. Refunded
  // too, it would be an answer had for free.
  if (request.signal && idempotencyKey === undefined) {
    refundIfLost(services.ledger, request.signal, key.accountId, request.requestId);
  }
  return {
    ok: true,
    data: result.data,
    enriched,
    credits: { charged: cost, remaining: debit.remaining, ...capped },
    maxItems: items,
    ...(shortened ? { shortened } : {}),
    ...(nextToken ? { nextToken } : {}),
    rate,
  };
}

/**
 * Reads at most `maxItems`, and again with fewer while the answer is larger than the surface's output
 * limit: each time as many as the last read's size says will fit, a little under, so one more read is
 * the usual case. A read of one item is never cut, nor one whose entry returns as many items whatever
 * it is allowed (trends take their own limit): asking again would only read the same answer.
 */
async function withinOutputLimit(
  endpoint: Endpoint,
  read: (items: number) => Promise<ReadResult<unknown>>,
  maxItems: number,
  limit: OutputLimit | undefined,
): Promise<{ result: ReadResult<unknown>; items: number; shortened?: true }> {
  let result = await read(maxItems);
  if (!limit) return { result, items: maxItems };
  let items = maxItems;
  let size = limit.size(result.data);
  let count = countedItems(endpoint, result);
  while (size > limit.max && count > 1) {
    const allowed = Math.max(1, Math.min(count - 1, Math.floor(((count * limit.max) / size) * 0.95)));
    const fewer = await read(allowed);
    const fewerCount = countedItems(endpoint, fewer);
    if (fewerCount >= count) break;
    result = fewer;
    items = allowed;
    count = fewerCount;
    size = limit.size(result.data);
  }
  return items < maxItems ? { result, items, shortened: true } : { result, items };
}
