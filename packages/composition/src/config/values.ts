// One environment variable's text → its value, checked once at start with a message that names the
// variable and what it must be. Each takes `undefined` for a variable that is unset or empty, and
// gives its default then.
import { availableParallelism } from "node:os";
import { DEFAULT_RATE_LIMIT, DEFAULT_RETRY_BASE_MS, MAX_RETRY_DELAY_MS, parseDatabaseUrl } from "@social/core";
import type { Synchronous } from "@social/store-sqlite";
import { WORLD_SOURCES, type WorldSource } from "../world-source.ts";

export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = 3000;

export function portFrom(value: string | undefined): number {
  const port = Number(value ?? DEFAULT_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error("PORT must be an integer from 0 to 65535");
  return port;
}

/** Links in answers end without a slash: paths are appended to it. */
export function publicUrlFrom(value: string | undefined): string | undefined {
  return value?.replace(/\/$/, "");
}

/** More workers than this is a typo, not a plan: each holds its own database pool. */
export const MAX_WORKERS = 64;

/** WEB_CONCURRENCY: a whole number of processes, or `auto` for one per core; 1 when unset. */
export function workersFrom(value: string | undefined): number {
  if (value === undefined) return 1;
  if (value === "auto") return availableParallelism();
  const workers = Number(value);
  if (!Number.isInteger(workers) || workers < 1 || workers > MAX_WORKERS) {
    throw new Error(`WEB_CONCURRENCY must be a whole number from 1 to ${MAX_WORKERS}, or auto (one per core)`);
  }
  return workers;
}

/** SOCIAL_API_WORKER, which the supervisor sets: the worker's number, from 1. */
export function workerFrom(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const worker = Number(value);
  if (!Number.isInteger(worker) || worker < 1 || worker > MAX_WORKERS) {
    throw new Error(`SOCIAL_API_WORKER is the supervisor's: a worker's number from 1 to ${MAX_WORKERS}, or unset`);
  }
  return worker;
}

/** Where every process (server, MCP stdio server, CLI) finds the database unless DATABASE_URL says otherwise. */
export const DEFAULT_DATABASE_URL = "file:data/social.db";

/** Refused at start when no adapter serves its scheme (core's parseDatabaseUrl says why). */
export function databaseUrlFrom(value: string | undefined): string {
  const url = value ?? DEFAULT_DATABASE_URL;
  parseDatabaseUrl(url);
  return url;
}

export function worldSourceFrom(value: string | undefined): WorldSource {
  if (value === undefined) return "generated";
  const source = WORLD_SOURCES.find((name) => name === value);
  if (source === undefined)
    throw new Error(`WORLD must be ${WORLD_SOURCES.join(" or ")}, not ${JSON.stringify(value)}`);
  return source;
}

/** SQLITE_SYNCHRONOUS, in either case; what each mode keeps is openDatabase's (store-sqlite). */
export function synchronousFrom(value: string | undefined): Synchronous {
  const mode = (value ?? "FULL").toUpperCase();
  if (mode !== "NORMAL" && mode !== "FULL") throw new Error("SQLITE_SYNCHRONOUS must be FULL or NORMAL");
  return mode;
}

const REDIS_SCHEMES = ["redis:", "rediss:"];

/**
 * A scheme Bun's Redis client does not speak is a configuration mistake to report at start, not a
 * limiter that silently never shares.
 */
export function redisUrlFrom(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const parsed = URL.canParse(value) ? new URL(value) : undefined;
  if (!parsed || !REDIS_SCHEMES.includes(parsed.protocol) || parsed.hostname === "") {
    throw new Error("REDIS_URL must be a redis:// or rediss:// URL with a host, e.g. redis://127.0.0.1:6379");
  }
  return value;
}

export function ratePerSecondFrom(value: string | undefined): number {
  const ratePerSecond = value === undefined ? DEFAULT_RATE_LIMIT.ratePerSecond : Number(value);
  if (!Number.isFinite(ratePerSecond) || ratePerSecond < 0) throw new Error("RATE_LIMIT_RPS must be a number >= 0");
  return ratePerSecond;
}

/** RATE_LIMIT_BURST as given; unset, its default depends on RATE_LIMIT_RPS (see burstFor). */
export function burstFrom(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const burst = Number(value);
  if (!Number.isInteger(burst) || burst < 1) throw new Error("RATE_LIMIT_BURST must be an integer >= 1");
  return burst;
}

/** A bucket smaller than a second's rate would refuse what the rate allows. */
export function burstFor(burst: number | undefined, ratePerSecond: number): number {
  return burst ?? Math.max(DEFAULT_RATE_LIMIT.burst, ratePerSecond);
}

/** Configured secrets must be long enough that guessing them is hopeless (256 bits as hex is 64). */
export const MIN_SECRET_LENGTH = 32;

/** TOKEN_SECRET or SESSION_SECRET: unset, one is generated and kept in the database. */
export function secretFrom(name: string): (value: string | undefined) => string | undefined {
  return (value) => {
    if (value !== undefined && value.length < MIN_SECRET_LENGTH) {
      throw new Error(`${name} must be at least ${MIN_SECRET_LENGTH} characters (or unset: one is generated)`);
    }
    return value;
  };
}

export function issuerFrom(value: string | undefined): string | undefined {
  if (value !== undefined && !URL.canParse(value)) throw new Error("OIDC_ISSUER must be a URL");
  return value;
}

export const DEFAULT_REQUEST_LOG_DAYS = 30;
/** Ten years: longer is a typo (for any retention in days). */
const MAX_REQUEST_LOG_DAYS = 3650;

/** REQUEST_LOG_DAYS: whole days from 0 (no log) to ten years. */
export function requestLogDaysFrom(value: string | undefined): number {
  if (value === undefined) return DEFAULT_REQUEST_LOG_DAYS;
  const days = Number(value);
  if (!Number.isInteger(days) || days < 0 || days > MAX_REQUEST_LOG_DAYS) {
    throw new Error(
      `REQUEST_LOG_DAYS must be a whole number of days from 0 (no request log) to ${MAX_REQUEST_LOG_DAYS}`,
    );
  }
  return days;
}

export const DEFAULT_MONITOR_MATCH_DAYS = 30;

/** MONITOR_MATCH_DAYS: whole days from 1 to ten years (a match is kept at least until it can be read). */
export function monitorMatchDaysFrom(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MONITOR_MATCH_DAYS;
  const days = Number(value);
  if (!Number.isInteger(days) || days < 1 || days > MAX_REQUEST_LOG_DAYS) {
    throw new Error(`MONITOR_MATCH_DAYS must be a whole number of days from 1 to ${MAX_REQUEST_LOG_DAYS}`);
  }
  return days;
}

/** The most characters an MCP tool result's text holds unless SOCIAL_MCP_MAX_CHARS says otherwise. */
export const DEFAULT_MCP_MAX_CHARS = 40_000;
/** Below this a page of full tweets could not hold one item beside its first line. */
export const MIN_MCP_MAX_CHARS = 4_000;
const MAX_MCP_MAX_CHARS = 1_000_000;

export function mcpMaxCharsFrom(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MCP_MAX_CHARS;
  const chars = /^\d{1,7}$/.test(value) ? Number(value) : Number.NaN;
  if (!(chars >= MIN_MCP_MAX_CHARS && chars <= MAX_MCP_MAX_CHARS)) {
    throw new Error(
      `SOCIAL_MCP_MAX_CHARS must be a whole number from ${MIN_MCP_MAX_CHARS} to ${MAX_MCP_MAX_CHARS}, not ${value}`,
    );
  }
  return chars;
}

/** Text the variable's reader checks further (an API key, the MCP tool names), or that needs no check. */
export function textFrom(value: string | undefined): string | undefined {
  return value;
}

/** MONITOR_ALLOW_PRIVATE: `true` or `false` only, so that a typo does not open the private network. */
export function allowPrivateFrom(value: string | undefined): boolean {
  if (value === undefined || value === "false") return false;
  if (value === "true") return true;
  throw new Error(`MONITOR_ALLOW_PRIVATE must be true or false, not ${JSON.stringify(value)}`);
}

/** Below this a failing receiver would be called again before it could recover. */
const MIN_RETRY_BASE_MS = 100;

/** MONITOR_RETRY_BASE_MS: the first retry's delay in ms, from 100 ms to the longest delay (an hour). */
export function retryBaseFrom(value: string | undefined): number {
  if (value === undefined) return DEFAULT_RETRY_BASE_MS;
  const ms = /^\d{1,8}$/.test(value) ? Number(value) : Number.NaN;
  if (!(ms >= MIN_RETRY_BASE_MS && ms <= MAX_RETRY_DELAY_MS)) {
    throw new Error(
      `MONITOR_RETRY_BASE_MS must be a whole number of milliseconds from ${MIN_RETRY_BASE_MS} to ${MAX_RETRY_DELAY_MS}, not ${value}`,
    );
  }
  return ms;
}
