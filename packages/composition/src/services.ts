// The pipeline's services on a backend, configured the same way by every process that serves it (HTTP
// server, MCP stdio server): the same stored pagination-token secret, so a next_token from one surface
// pages on the other.
import { createServices, type RateLimiter, type Services, TOKEN_SECRET_SETTING } from "@social/core";
import type { Backend } from "./backend.ts";
import { nativeHmac } from "./hmac.ts";

/** `logRequests`: whether uncharged answers go to the request log (off when REQUEST_LOG_DAYS is 0). */
export async function backendServices(
  backend: Backend,
  options: { tokenSecret?: string | undefined; limiter: RateLimiter; logRequests?: boolean },
): Promise<Services> {
  return createServices({
    store: backend.store,
    ledger: backend.ledger,
    accounts: backend.accounts,
    idempotency: backend.idempotency,
    monitors: backend.monitors,
    tokenSecret: options.tokenSecret || (await backend.secret(TOKEN_SECRET_SETTING)),
    limiter: options.limiter,
    hmac: nativeHmac,
    ...(options.logRequests === false ? {} : { requestLog: backend.requestLog }),
  });
}
