// What a surface hands the request pipeline (execute.ts) and what it gets back.
import type { FewerItems } from "../billing/credit-refusal.ts";
import type { Endpoint, ParamsSchema } from "../endpoint.ts";
import type { Credits } from "../envelope.ts";
import type { ApiError } from "../errors.ts";
import type { Accounts } from "../ports/accounts.ts";
import type { IdempotencyRecords, StoredAnswer } from "../ports/idempotency.ts";
import type { KeyCheck, Ledger } from "../ports/ledger.ts";
import type { Monitors } from "../ports/monitors.ts";
import type { RateLimiter, RateState } from "../ports/rate-limiter.ts";
import type { RequestLog } from "../ports/request-log.ts";
import type { Store } from "../ports/store.ts";
import type { TokenCodec } from "../tokens.ts";

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

/** The key of a request once authenticated. */
export type ActiveKey = Extract<KeyCheck, { status: "active" }>;

/** Every surface's services: the pipeline's, the accounts behind the free account reads, and the monitors. */
export interface Services extends ReadServices {
  accounts: Accounts;
  idempotency: IdempotencyRecords;
  monitors: Monitors;
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
  /** What the client called (calledAs): the request log shows it. Absent where there is no path (MCP). */
  call?: string;
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
