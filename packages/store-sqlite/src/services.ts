// The pipeline's services on one SQLite handle, for the tests and benches that hold one, each port
// answering outages as @social/composition's composition makes it. The processes that serve (HTTP server,
// MCP stdio server) use @social/composition's backendServices, which configures them the same way on either
// adapter.
import type { Database } from "bun:sqlite";
import {
  answeringOutages,
  createServices,
  LocalRateLimiter,
  type RateLimitConfig,
  type Services,
  TOKEN_SECRET_SETTING,
} from "@social/core";
import { SqliteAccounts } from "./ledger/sqlite-accounts.ts";
import { SqliteIdempotency } from "./ledger/sqlite-idempotency.ts";
import { SqliteLedger } from "./ledger/sqlite-ledger.ts";
import { SqliteMonitors } from "./monitors/sqlite-monitors.ts";
import { isDatabaseOutage } from "./outage.ts";
import { persistentSecret } from "./settings.ts";
import { SqliteStore } from "./store/sqlite-store.ts";

export function sqliteServices(
  db: Database,
  options: { tokenSecret?: string | undefined; rateLimit: RateLimitConfig },
): Promise<Services> {
  const answering = <Port extends object>(port: Port): Port => answeringOutages(port, isDatabaseOutage);
  return createServices({
    store: answering(new SqliteStore(db)),
    ledger: answering(new SqliteLedger(db)),
    accounts: answering(new SqliteAccounts(db)),
    idempotency: answering(new SqliteIdempotency(db)),
    monitors: answering(new SqliteMonitors(db)),
    tokenSecret: options.tokenSecret || persistentSecret(db, TOKEN_SECRET_SETTING),
    limiter: new LocalRateLimiter(options.rateLimit),
  });
}
