// The pipeline's services on the SQLite database, configured as the HTTP server configures them:
// the same pagination-token secret (TOKEN_SECRET, else the one kept in the database), so a
// next_token from one surface pages on the other, and the same rate-limit settings.
import type { Database } from "bun:sqlite";
import { createServices, rateLimitFromEnv, type Services } from "@social/core";
import { persistentSecret, SqliteLedger, SqliteStore } from "@social/store-sqlite";

export const DEFAULT_DATABASE_URL = "file:data/social.db";
/** The settings name under which the HTTP server keeps its generated token secret. */
export const TOKEN_SECRET_SETTING = "pagination_token_secret";

export function servicesOn(db: Database, env: Record<string, string | undefined>): Promise<Services> {
  return createServices({
    store: new SqliteStore(db),
    ledger: new SqliteLedger(db),
    tokenSecret: env.TOKEN_SECRET || persistentSecret(db, TOKEN_SECRET_SETTING),
    rateLimit: rateLimitFromEnv(env.RATE_LIMIT_RPS, env.RATE_LIMIT_BURST),
  });
}
