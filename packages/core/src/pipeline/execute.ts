// The one request pipeline every surface runs: authenticate → rate limit → validate → read → charge.
// Failures before the charge leave the ledger untouched, and the charge is a single ledger debit that
// either covers the whole cost or refuses the request, so a failed request is never billed.
import { type CostRule, costOf, costRuleFor } from "../billing/costs.ts";
import { fewerItemsOf, insufficientCredits, shortfallOf } from "../billing/credit-refusal.ts";
import { quoteOf, withinCap } from "../billing/request-budget.ts";
import { type Endpoint, maxItemsOf, type ReadResult } from "../endpoint.ts";
import { ApiError } from "../errors.ts";
import { claimIdempotencyKey, idempotencyKeyOf, idempotencyTakenOver, requestFingerprint } from "../idempotency.ts";
import { LedgerError } from "../ledger-errors.ts";
import { refundIfLost } from "../lost-answers.ts";
import type { StoredAnswer } from "../ports/idempotency.ts";
import type { RateState } from "../ports/rate-limiter.ts";
import { CLIENT_CLOSED_STATUS } from "../ports/request-log.ts";
import type { Cursor, PageRequest, Store } from "../ports/store.ts";
import { rateLimitError } from "../ratelimit.ts";
import type { RequestControls } from "../request-controls.ts";
import { loggedErrorCode, withoutSecrets } from "../request-log.ts";
import { authenticate, expiredKey, revokedKey } from "./authenticate.ts";
import { countedItems, withinOutputLimit } from "./output-limit.ts";
import type {
  ActiveKey,
  Enrichment,
  ReadFailure,
  ReadOutcome,
  ReadRequest,
  ReadServices,
  ReadSuccess,
} from "./read-request.ts";
import { parseParams, tokenBinding } from "./validate.ts";

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

/** What a request's entry in the request log says besides its outcome (see request-log.ts). */
export interface LoggedAs<T> {
  requestId: string;
  endpoint: string;
  /** What the client called (calledAs); absent where the surface has no path. */
  call?: string;
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
  const log = (status: number, errorCode: string | null, message: string | null) => {
    if (!caller || !logged || !services.requestLog) return;
    const gone = logged.signal?.aborted === true;
    services.requestLog.append({
      requestId: logged.requestId,
      accountId: caller.accountId,
      keyId: caller.keyId,
      endpoint: logged.endpoint,
      call: logged.call ?? null,
      status: gone ? CLIENT_CLOSED_STATUS : status,
      errorCode: gone ? null : errorCode,
      message: gone || message === null ? null : withoutSecrets(message),
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
    if (logged && !logged.charged(result)) log(200, null, null);
    return result;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (!loggedAsRefund.has(error))
      log(logged?.answeredAs?.(error) ?? error.status, loggedErrorCode(error), error.message);
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
    ...(request.call === undefined ? {} : { call: request.call }),
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
  if (short) throw insufficientCredits(base, short, key.keyId, refused);
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
    ...(request.call === undefined ? {} : { call: request.call }),
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
  if (!debit.ok) throw insufficientCredits(cost, debit, key.keyId, refused);
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
