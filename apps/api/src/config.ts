// Everything the server reads from its environment, parsed and checked once at start-up.

import { availableParallelism } from "node:os";
import {
  checkedRedisUrl,
  DEFAULT_DATABASE_URL,
  requestLogDaysFrom,
  type Synchronous,
  synchronousFrom,
  type WorldSource,
  worldSourceFrom,
} from "@social/composition";
import { DEFAULT_RATE_LIMIT, parseDatabaseUrl, type RateLimitConfig, rateLimitFromEnv } from "@social/core";
import { maxCharsFrom } from "@social/mcp";
import { type BillingSettings, billingFromEnv } from "./dashboard/billing-page.ts";
import type { OidcSettings } from "./dashboard/oidc.ts";

export interface ServerConfig {
  host: string;
  port: number;
  databaseUrl: string;
  /** Where the world comes from when the database has none (WORLD): the fixture world when absent, or an empty one. */
  world?: WorldSource;
  rateLimit: RateLimitConfig;
  /** Where rate-limit buckets are shared by every process; absent, each process counts its own share. */
  redisUrl?: string;
  /** How many server processes `bun run start` runs on the port (WEB_CONCURRENCY); 1 when absent. */
  workers?: number;
  /** Set in a worker a supervisor started: its number, from 1. */
  worker?: number;
  /** Where links in responses (help_url, docs) point; defaults to the listening address. */
  publicUrl: string;
  /** SQLite only: how commits reach the disk; FULL when absent (see openDatabase). */
  synchronous?: Synchronous;
  /** The pagination-token secret; when absent one is generated and kept in the database. */
  tokenSecret?: string;
  /** The identity provider for dashboard sign-in; absent, the dashboard explains how to configure one. */
  oidc?: OidcSettings;
  /** Keys the stored session digests; when absent one is generated and kept in the database. */
  sessionSecret?: string;
  /** The most characters an MCP tool result's text holds (SOCIAL_MCP_MAX_CHARS). */
  mcpMaxChars?: number;
  /** Days the request log keeps an answer (REQUEST_LOG_DAYS); 0 keeps no log; 30 when absent. */
  requestLogDays?: number;
  /** Prices and where to buy credits (BILLING_URL, BILLING_CONTACT, BILLING_PLANS); none when absent. */
  billing?: BillingSettings;
}

/** All three OIDC settings or none: a half-configured provider is a mistake to report at start-up. */
function oidcFromEnv(env: Record<string, string | undefined>): OidcSettings | undefined {
  const { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: clientId, OIDC_CLIENT_SECRET: clientSecret } = env;
  if (!issuer && !clientId && !clientSecret) return undefined;
  if (!issuer || !clientId || !clientSecret) {
    throw new Error("OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET must be set together");
  }
  if (!URL.canParse(issuer)) throw new Error("OIDC_ISSUER must be a URL");
  return { issuer, clientId, clientSecret };
}

/** Refused at start when no adapter serves its scheme. */
function checkedDatabaseUrl(url: string): string {
  parseDatabaseUrl(url);
  return url;
}

/** More workers than this is a typo, not a plan: each holds its own database pool. */
export const MAX_WORKERS = 64;

/** WEB_CONCURRENCY: a whole number of processes, or `auto` for one per core; 1 when unset. */
function workersFromEnv(value: string | undefined): number {
  if (value === undefined || value === "") return 1;
  if (value === "auto") return availableParallelism();
  const workers = Number(value);
  if (!Number.isInteger(workers) || workers < 1 || workers > MAX_WORKERS) {
    throw new Error(`WEB_CONCURRENCY must be a whole number from 1 to ${MAX_WORKERS}, or auto (one per core)`);
  }
  return workers;
}

/** Configured secrets must be long enough that guessing them is hopeless (256 bits as hex is 64). */
export const MIN_SECRET_LENGTH = 32;

export function configFromEnv(env: Record<string, string | undefined>): ServerConfig {
  const host = env.HOST || "127.0.0.1";
  const port = Number(env.PORT || 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error("PORT must be an integer from 0 to 65535");
  const oidc = oidcFromEnv(env);
  for (const name of ["TOKEN_SECRET", "SESSION_SECRET"]) {
    const secret = env[name];
    if (secret && secret.length < MIN_SECRET_LENGTH) {
      throw new Error(`${name} must be at least ${MIN_SECRET_LENGTH} characters (or unset: one is generated)`);
    }
  }
  return {
    host,
    port,
    databaseUrl: checkedDatabaseUrl(env.DATABASE_URL || DEFAULT_DATABASE_URL),
    world: worldSourceFrom(env.WORLD),
    synchronous: synchronousFrom(env.SQLITE_SYNCHRONOUS),
    rateLimit: rateLimitFromEnv(env.RATE_LIMIT_RPS, env.RATE_LIMIT_BURST),
    ...(env.REDIS_URL ? { redisUrl: checkedRedisUrl(env.REDIS_URL) } : {}),
    workers: workersFromEnv(env.WEB_CONCURRENCY),
    ...(env[WORKER_ENV] ? { worker: Number(env[WORKER_ENV]) } : {}),
    publicUrl: (env.PUBLIC_URL || `http://${host.includes(":") ? `[${host}]` : host}:${port}`).replace(/\/$/, ""),
    ...(env.TOKEN_SECRET ? { tokenSecret: env.TOKEN_SECRET } : {}),
    ...(oidc ? { oidc } : {}),
    ...(env.SESSION_SECRET ? { sessionSecret: env.SESSION_SECRET } : {}),
    mcpMaxChars: maxCharsFrom(env.SOCIAL_MCP_MAX_CHARS),
    requestLogDays: requestLogDaysFrom(env.REQUEST_LOG_DAYS),
    billing: billingFromEnv(env),
  };
}

export { DEFAULT_RATE_LIMIT };

/** Set by the supervisor in each worker's environment: which worker it is. */
export const WORKER_ENV = "SOCIAL_API_WORKER";
