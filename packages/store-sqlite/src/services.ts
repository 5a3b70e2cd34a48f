// The pipeline's services on one SQLite handle, for the tests and benches that hold one. The processes
// that serve (HTTP server, MCP stdio server) use @social/backend's backendServices, which configures
// them the same way on either adapter.
import type { Database } from "bun:sqlite";
import {
  createServices,
  LocalRateLimiter,
  type RateLimitConfig,
  type Services,
  TOKEN_SECRET_SETTING,
} from "@social/core";
import { SqliteAccounts } from "./ledger/sqlite-accounts.ts";
import { SqliteIdempotency } from "./ledger/sqlite-idempotency.ts";
import { SqliteLedger } from "./ledger/sqlite-ledger.ts";
import { persistentSecret } from "./settings.ts";
import { SqliteStore } from "./store/sqlite-store.ts";

export function sqliteServices(
  db: Database,
  options: { tokenSecret?: string | undefined; rateLimit: RateLimitConfig },
): Promise<Services> {
  return createServices({
    store: new SqliteStore(db),
    ledger: new SqliteLedger(db),
    accounts: new SqliteAccounts(db),
    idempotency: new SqliteIdempotency(db),
    tokenSecret: options.tokenSecret || persistentSecret(db, TOKEN_SECRET_SETTING),
    limiter: new LocalRateLimiter(options.rateLimit),
  });
}
