// Each program's configuration from its environment: every variable it reads (variables.ts says which)
// parsed and checked once, before anything opens, so that a mistake is one line at start. The rules
// that join variables (the OIDC three together, PUBLIC_URL's default, RATE_LIMIT_BURST's) live here.
import type { RateLimitConfig } from "@social/core";
import type { Synchronous } from "@social/store-sqlite";
import type { WorldSource } from "../world-source.ts";
import type { BillingSettings } from "./billing.ts";
import { burstFor } from "./values.ts";
import { VARIABLES, type VariableName } from "./variables.ts";

export type Environment = Readonly<Record<string, string | undefined>>;

/** What opens the database and the services on it, for every serving process (openRuntime). */
export interface RuntimeConfig {
  databaseUrl: string;
  /** Where the world comes from when the database has none: the fixture world when absent. */
  world?: WorldSource;
  /** SQLite only: how commits reach the disk; FULL when absent (see openDatabase). */
  synchronous?: Synchronous;
  rateLimit: RateLimitConfig;
  /** Where rate-limit buckets are shared by every process; absent, each process counts its own share. */
  redisUrl?: string;
  /** How many processes serve the same keys on this machine (WEB_CONCURRENCY); 1 when absent. */
  workers?: number;
  /** The pagination-token secret; when absent the one kept in the database. */
  tokenSecret?: string;
  /** Days the request log keeps an answer; 0 keeps no log; REQUEST_LOG_DAYS's default when absent. */
  requestLogDays?: number;
}

/** The identity provider for dashboard sign-in. */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

export interface ServerConfig extends RuntimeConfig {
  host: string;
  port: number;
  /** Set in a worker a supervisor started: its number, from 1. */
  worker?: number;
  /** Where links in responses (help_url, docs) point; the listening address by default. */
  publicUrl: string;
  /** Absent: the dashboard explains how to configure one. */
  oidc?: OidcSettings;
  /** Keys the stored session digests; when absent the one kept in the database. */
  sessionSecret?: string;
  /** The most characters an MCP tool result's text holds on /mcp; the MCP default when absent. */
  mcpMaxChars?: number;
  /** Prices and where to buy credits; none when absent. */
  billing?: BillingSettings;
  /** Monitor webhooks may reach loopback, private and link-local addresses (MONITOR_ALLOW_PRIVATE). */
  allowPrivateWebhooks?: boolean;
  /** The first retry's delay of a failing webhook (MONITOR_RETRY_BASE_MS); core's default when absent. */
  webhookRetryBaseMs?: number;
  /** Days a monitor's matches are kept (MONITOR_MATCH_DAYS); its default when absent. */
  monitorMatchDays?: number;
}

export interface McpStdioConfig extends RuntimeConfig {
  /** SOCIAL_API_KEY: checked against the ledger as the server starts (apps/mcp's auth.ts). */
  apiKey: string | undefined;
  /** SOCIAL_TOOLSETS and SOCIAL_TOOLS as written: the tool catalogue checks the names (selectTools). */
  toolsets: string | undefined;
  tools: string | undefined;
  maxChars: number;
}

export interface AdminConfig {
  databaseUrl: string;
}

type Parsed<Name extends VariableName> = (typeof VARIABLES)[Name] extends {
  parse: (text: string | undefined) => infer Value;
}
  ? { value: Value }
  : never;
/** The variables this module reads (not those only the runtime does). */
type ParsedName = { [Name in VariableName]: Parsed<Name> extends never ? never : Name }[VariableName];
type ValueOf<Name extends ParsedName> = Parsed<Name>["value"];
type Read = <Name extends ParsedName>(name: Name) => ValueOf<Name>;

/** An empty variable is an unset one, as a shell's `NAME= cmd` means it. */
function reader(env: Environment): Read {
  return (name) => {
    const text = env[name];
    return VARIABLES[name].parse(text === "" ? undefined : text) as ValueOf<typeof name>;
  };
}

/** The address a server on host:port answers at (IPv6 in brackets). */
export function httpUrl(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

function runtimeConfig(read: Read): RuntimeConfig {
  const ratePerSecond = read("RATE_LIMIT_RPS");
  return {
    databaseUrl: read("DATABASE_URL"),
    world: read("WORLD"),
    synchronous: read("SQLITE_SYNCHRONOUS"),
    rateLimit: { ratePerSecond, burst: burstFor(read("RATE_LIMIT_BURST"), ratePerSecond) },
    redisUrl: read("REDIS_URL"),
    tokenSecret: read("TOKEN_SECRET"),
    requestLogDays: read("REQUEST_LOG_DAYS"),
  };
}

/** All three or none: a half-configured provider is a mistake to report at start. */
function oidcFrom(read: Read): OidcSettings | undefined {
  const [issuer, clientId, clientSecret] = [read("OIDC_ISSUER"), read("OIDC_CLIENT_ID"), read("OIDC_CLIENT_SECRET")];
  if (!issuer && !clientId && !clientSecret) return undefined;
  if (!issuer || !clientId || !clientSecret) {
    throw new Error("OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET must be set together");
  }
  return { issuer, clientId, clientSecret };
}

/** `npm start` (the server, the supervisor and each worker). */
export function readServerConfig(env: Environment): ServerConfig {
  const read = reader(env);
  const host = read("HOST");
  const port = read("PORT");
  return {
    host,
    port,
    ...runtimeConfig(read),
    workers: read("WEB_CONCURRENCY"),
    worker: read("SOCIAL_API_WORKER"),
    publicUrl: read("PUBLIC_URL") ?? httpUrl(host, port),
    oidc: oidcFrom(read),
    sessionSecret: read("SESSION_SECRET"),
    mcpMaxChars: read("SOCIAL_MCP_MAX_CHARS"),
    billing: { url: read("BILLING_URL"), contact: read("BILLING_CONTACT"), plans: read("BILLING_PLANS") },
    allowPrivateWebhooks: read("MONITOR_ALLOW_PRIVATE"),
    webhookRetryBaseMs: read("MONITOR_RETRY_BASE_MS"),
    monitorMatchDays: read("MONITOR_MATCH_DAYS"),
  };
}

/** `npm run mcp`. */
export function readMcpStdioConfig(env: Environment): McpStdioConfig {
  const read = reader(env);
  return {
    ...runtimeConfig(read),
    apiKey: read("SOCIAL_API_KEY"),
    toolsets: read("SOCIAL_TOOLSETS"),
    tools: read("SOCIAL_TOOLS"),
    maxChars: read("SOCIAL_MCP_MAX_CHARS"),
  };
}

/** `npm run admin`. */
export function readAdminConfig(env: Environment): AdminConfig {
  return { databaseUrl: reader(env)("DATABASE_URL") };
}
