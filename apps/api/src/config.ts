// Everything the server reads from its environment, parsed and checked once at start-up.
import { DEFAULT_RATE_LIMIT, type RateLimitConfig, rateLimitFromEnv } from "@social/core";

export interface ServerConfig {
  host: string;
  port: number;
  databaseUrl: string;
  rateLimit: RateLimitConfig;
  /** Where links in responses (help_url, docs) point; defaults to the listening address. */
  publicUrl: string;
  /** The pagination-token secret; when absent one is generated and kept in the database. */
  tokenSecret?: string;
}

export const DEFAULT_DATABASE_URL = "file:data/social.db";

export function configFromEnv(env: Record<string, string | undefined>): ServerConfig {
  const host = env.HOST || "127.0.0.1";
  const port = Number(env.PORT || 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error("PORT must be an integer from 0 to 65535");
  return {
    host,
    port,
    databaseUrl: env.DATABASE_URL || DEFAULT_DATABASE_URL,
    rateLimit: rateLimitFromEnv(env.RATE_LIMIT_RPS, env.RATE_LIMIT_BURST),
    publicUrl: (env.PUBLIC_URL || `http://${host.includes(":") ? `[${host}]` : host}:${port}`).replace(/\/$/, ""),
    ...(env.TOKEN_SECRET ? { tokenSecret: env.TOKEN_SECRET } : {}),
  };
}

export { DEFAULT_RATE_LIMIT };
