// The pipeline's services on one SQLite database, configured the same way by every process that
// serves it (HTTP server, MCP stdio server): the same pagination-token secret, so a next_token from
// one surface pages on the other, and the same rate-limit settings.
import type { Database } from "bun:sqlite";
import { createServices, type RateLimitConfig, type Services } from "@social/core";
import { SqliteLedger } from "./ledger/sqlite-ledger.ts";
import { persistentSecret } from "./settings.ts";
import { SqliteStore } from "./store/sqlite-store.ts";

export const TOKEN_SECRET_SETTING = "pagination_token_secret";

export function sqliteServices(
  db: Database,
  options: { tokenSecret?: string | undefined; rateLimit: RateLimitConfig },
): Promise<Services> {
  return createServices({
    store: new SqliteStore(db),
    ledger: new SqliteLedger(db),
    tokenSecret: options.tokenSecret || persistentSecret(db, TOKEN_SECRET_SETTING),
    rateLimit: options.rateLimit,
  });
}
