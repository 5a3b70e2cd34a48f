// Assembles the pipeline's services from a store and a ledger, so every surface (HTTP, MCP) configures
// tokens the same way.

import type { Services } from "./pipeline/index.ts";
import type { Accounts } from "./ports/accounts.ts";
import type { IdempotencyRecords } from "./ports/idempotency.ts";
import type { Ledger } from "./ports/ledger.ts";
import type { Monitors } from "./ports/monitors.ts";
import type { RateLimiter } from "./ports/rate-limiter.ts";
import type { RequestLog } from "./ports/request-log.ts";
import type { Store } from "./ports/store.ts";
import type { RateLimitConfig } from "./ratelimit.ts";
import { createTokenCodec, type HmacFactory } from "./tokens.ts";

/**
 * The stored setting that holds the pagination-token secret when TOKEN_SECRET is unset: one name on
 * every adapter and for every process, so a next_token from one surface pages on the other.
 */
export const TOKEN_SECRET_SETTING = "pagination_token_secret";

export interface ServiceOptions {
  store: Store;
  ledger: Ledger;
  accounts: Accounts;
  idempotency: IdempotencyRecords;
  monitors: Monitors;
  tokenSecret: string;
  limiter: RateLimiter;
  requestLog?: RequestLog;
  /** The runtime's own HMAC-SHA-256 for pagination tokens, when it has a faster one than WebCrypto. */
  hmac?: HmacFactory;
}

export async function createServices(options: ServiceOptions): Promise<Services> {
  return {
    store: options.store,
    ledger: options.ledger,
    accounts: options.accounts,
    idempotency: options.idempotency,
    monitors: options.monitors,
    tokens: await createTokenCodec(options.tokenSecret, options.hmac),
    limiter: options.limiter,
    ...(options.requestLog ? { requestLog: options.requestLog } : {}),
  };
}

/** 20 requests per second sustained per key, bursts of 40. */
export const DEFAULT_RATE_LIMIT: RateLimitConfig = { ratePerSecond: 20, burst: 40 };
