// Every environment variable the product reads: its name, its default, which programs read it, what it
// is for, and how its text is checked. docs/configuration.md and the README's list are checked against
// this table (test/config-docs.test.ts); read.ts turns it into each program's configuration.
import { DEFAULT_RATE_LIMIT, DEFAULT_RETRY_BASE_MS } from "@social/core";
import { billingContactFrom, billingPlansFrom, billingUrlFrom } from "./billing.ts";
import {
  allowPrivateFrom,
  burstFrom,
  DEFAULT_DATABASE_URL,
  DEFAULT_HOST,
  DEFAULT_MCP_MAX_CHARS,
  DEFAULT_MONITOR_MATCH_DAYS,
  DEFAULT_PORT,
  DEFAULT_REQUEST_LOG_DAYS,
  databaseUrlFrom,
  issuerFrom,
  mcpMaxCharsFrom,
  monitorMatchDaysFrom,
  portFrom,
  publicUrlFrom,
  ratePerSecondFrom,
  redisUrlFrom,
  requestLogDaysFrom,
  retryBaseFrom,
  secretFrom,
  synchronousFrom,
  textFrom,
  workerFrom,
  workersFrom,
  worldSourceFrom,
} from "./values.ts";

/** `server`: `npm start` and its workers; `mcp`: the MCP stdio server; `admin`: the operator CLI. */
export type Program = "server" | "mcp" | "admin";
export const PROGRAMS: readonly Program[] = ["server", "mcp", "admin"];

/** What an unset variable means, as the docs write it: a value, or words when there is no one value. */
export type Default = { value: string } | { words: string };

export interface Variable {
  programs: readonly Program[];
  default: Default;
  /** One line for people; docs/configuration.md says the rest. */
  description: string;
  /** The text (undefined when unset or empty) → the value, or an Error naming the variable. */
  parse?: (text: string | undefined) => unknown;
}

const SERVER: readonly Program[] = ["server"];
const MCP: readonly Program[] = ["mcp"];
/** The processes that serve the API: the HTTP server and the MCP stdio server. */
const SERVING: readonly Program[] = ["server", "mcp"];
const EVERY: readonly Program[] = PROGRAMS;

const unset = { words: "unset" };

export const VARIABLES = {
  PORT: {
    programs: SERVER,
    default: { value: String(DEFAULT_PORT) },
    description: "the port the server listens on",
    parse: portFrom,
  },
  HOST: {
    programs: SERVER,
    default: { value: DEFAULT_HOST },
    description: "the address the server listens on",
    parse: (text: string | undefined) => text ?? DEFAULT_HOST,
  },
  PUBLIC_URL: {
    programs: SERVER,
    default: { words: "`http://HOST:PORT`" },
    description: "base of links in answers (`help_url`, docs)",
    parse: publicUrlFrom,
  },
  WEB_CONCURRENCY: {
    programs: SERVER,
    default: { value: "1" },
    description: "server processes on the port, up to 64, or `auto` for one per core",
    parse: workersFrom,
  },
  SOCIAL_API_WORKER: {
    programs: SERVER,
    default: unset,
    description: "set by the supervisor in each worker it starts (its number, from 1); not an operator's setting",
    parse: workerFrom,
  },
  BUN_JSC_forceRAMSize: {
    programs: SERVER,
    default: { value: String(512 * 1024 * 1024) },
    description: "the memory in bytes JavaScriptCore sizes the heap for; read by the runtime, set by `npm start`",
  },
  DATABASE_URL: {
    programs: EVERY,
    default: { value: DEFAULT_DATABASE_URL },
    description: "a SQLite path or `file:…`, or `postgres://…` for PostgreSQL",
    parse: databaseUrlFrom,
  },
  WORLD: {
    programs: SERVING,
    default: { value: "generated" },
    description: "the fixture world on first start, or `empty` for data imported later",
    parse: worldSourceFrom,
  },
  SQLITE_SYNCHRONOUS: {
    programs: SERVING,
    default: { value: "FULL" },
    description: "SQLite only: `NORMAL` is faster but can lose the last commits in a power failure",
    parse: synchronousFrom,
  },
  RATE_LIMIT_RPS: {
    programs: SERVING,
    default: { value: String(DEFAULT_RATE_LIMIT.ratePerSecond) },
    description: "sustained requests per second per key; `0` turns rate limiting off",
    parse: ratePerSecondFrom,
  },
  RATE_LIMIT_BURST: {
    programs: SERVING,
    default: { words: `\`${DEFAULT_RATE_LIMIT.burst}\`, or \`RATE_LIMIT_RPS\` when higher` },
    description: "bucket capacity per key",
    parse: burstFrom,
  },
  REDIS_URL: {
    programs: SERVING,
    default: unset,
    description: "a Redis or Valkey holding the rate-limit buckets for every process",
    parse: redisUrlFrom,
  },
  TOKEN_SECRET: {
    programs: SERVING,
    default: { words: "generated" },
    description: "the pagination-token secret (at least 32 characters); kept in the database when generated",
    parse: secretFrom("TOKEN_SECRET"),
  },
  SESSION_SECRET: {
    programs: SERVER,
    default: { words: "generated" },
    description: "keys the dashboard's session digests (at least 32 characters); kept in the database when generated",
    parse: secretFrom("SESSION_SECRET"),
  },
  OIDC_ISSUER: {
    programs: SERVER,
    default: unset,
    description: "the identity provider for dashboard sign-in (with the other two OIDC variables)",
    parse: issuerFrom,
  },
  OIDC_CLIENT_ID: {
    programs: SERVER,
    default: unset,
    description: "the dashboard's client id at the identity provider",
    parse: textFrom,
  },
  OIDC_CLIENT_SECRET: {
    programs: SERVER,
    default: unset,
    description: "the dashboard's client secret at the identity provider",
    parse: textFrom,
  },
  REQUEST_LOG_DAYS: {
    programs: SERVING,
    default: { value: String(DEFAULT_REQUEST_LOG_DAYS) },
    description: "days the request log keeps each uncharged answer; `0` keeps none",
    parse: requestLogDaysFrom,
  },
  BILLING_URL: {
    programs: SERVER,
    default: unset,
    description: "the operator's checkout, linked from `/billing` (an http(s) URL)",
    parse: billingUrlFrom,
  },
  BILLING_CONTACT: {
    programs: SERVER,
    default: unset,
    description: "where to ask for credits when there is no checkout: an e-mail address or a URL",
    parse: billingContactFrom,
  },
  BILLING_PLANS: {
    programs: SERVER,
    default: { words: "none" },
    description: "the prices shown on `/billing`, as a JSON array of {name, credits, price, note?}",
    parse: billingPlansFrom,
  },
  MONITOR_ALLOW_PRIVATE: {
    programs: SERVER,
    default: { value: "false" },
    description: "`true` lets monitor webhooks reach loopback, private and link-local addresses",
    parse: allowPrivateFrom,
  },
  MONITOR_MATCH_DAYS: {
    programs: SERVER,
    default: { value: String(DEFAULT_MONITOR_MATCH_DAYS) },
    description: "days a monitor's matches are kept, read or not; older ones are purged every hour",
    parse: monitorMatchDaysFrom,
  },
  MONITOR_RETRY_BASE_MS: {
    programs: SERVER,
    default: { value: String(DEFAULT_RETRY_BASE_MS) },
    description: "the first retry's delay of a failing webhook, in ms, doubling per attempt up to an hour",
    parse: retryBaseFrom,
  },
  SOCIAL_API_KEY: {
    programs: MCP,
    default: { words: "none" },
    description: "the MCP stdio server's API key (required)",
    parse: textFrom,
  },
  SOCIAL_TOOLSETS: {
    programs: MCP,
    default: { words: "all" },
    description: "the toolsets the MCP stdio server offers, comma-separated",
    parse: textFrom,
  },
  SOCIAL_TOOLS: {
    programs: MCP,
    default: { words: "all" },
    description: "single tools the MCP stdio server offers besides its toolsets, comma-separated",
    parse: textFrom,
  },
  SOCIAL_MCP_MAX_CHARS: {
    programs: SERVING,
    default: { value: String(DEFAULT_MCP_MAX_CHARS) },
    description: "the most characters an MCP tool result's text holds, on `/mcp` and stdio",
    parse: mcpMaxCharsFrom,
  },
} satisfies Record<string, Variable>;

export type VariableName = keyof typeof VARIABLES;

/** The default as the docs show it: a value in backticks, or the words. */
export function shownDefault(variable: Variable): string {
  return "value" in variable.default ? `\`${variable.default.value}\`` : variable.default.words;
}
