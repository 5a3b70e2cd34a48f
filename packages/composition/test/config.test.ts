// Each program's configuration as it reads its environment: exactly the variables the table says it
// reads, each checked with a message naming it, and the rules that join variables.
import { describe, expect, test } from "bun:test";
import {
  type Environment,
  PROGRAMS,
  type Program,
  readAdminConfig,
  readMcpStdioConfig,
  readServerConfig,
  VARIABLES,
  type Variable,
} from "../src/index.ts";

const READERS: Record<Program, (env: Environment) => unknown> = {
  server: readServerConfig,
  mcp: readMcpStdioConfig,
  admin: readAdminConfig,
};

/** The names a reader looks up in its environment. */
function namesRead(read: (env: Environment) => unknown): string[] {
  const names = new Set<string>();
  const env = new Proxy({} as Environment, {
    get: (_, name) => {
      if (typeof name === "string") names.add(name);
      return undefined;
    },
  });
  read(env);
  return [...names].sort();
}

describe("the table of variables", () => {
  test.each(PROGRAMS)(
    "%s reads exactly the variables the table lists for it (those the runtime reads aside)",
    (program) => {
      const listed = Object.entries(VARIABLES as Record<string, Variable>)
        .filter(([, variable]) => variable.programs.includes(program) && variable.parse)
        .map(([name]) => name)
        .sort();
      expect(namesRead(READERS[program])).toEqual(listed);
    },
  );
});

describe("defaults", () => {
  test("an unset or empty variable takes its default", () => {
    for (const env of [{}, { PORT: "", DATABASE_URL: "", WORLD: "", REQUEST_LOG_DAYS: "" }]) {
      const config = readServerConfig(env);
      expect(config).toMatchObject({
        host: "127.0.0.1",
        port: 3000,
        publicUrl: "http://127.0.0.1:3000",
        databaseUrl: "file:data/social.db",
        world: "generated",
        synchronous: "FULL",
        rateLimit: { ratePerSecond: 20, burst: 40 },
        workers: 1,
        requestLogDays: 30,
        mcpMaxChars: 40_000,
        allowPrivateWebhooks: false,
        webhookRetryBaseMs: 10_000,
      });
    }
  });

  test("PUBLIC_URL follows HOST and PORT unless set, without a trailing slash", () => {
    expect(readServerConfig({ HOST: "::1", PORT: "8080" }).publicUrl).toBe("http://[::1]:8080");
    expect(readServerConfig({ PUBLIC_URL: "https://api.example/" }).publicUrl).toBe("https://api.example");
  });

  test("RATE_LIMIT_BURST is at least a second's rate unless set", () => {
    expect(readMcpStdioConfig({ RATE_LIMIT_RPS: "100" }).rateLimit).toEqual({ ratePerSecond: 100, burst: 100 });
    expect(readMcpStdioConfig({ RATE_LIMIT_RPS: "100", RATE_LIMIT_BURST: "7" }).rateLimit.burst).toBe(7);
  });
});

describe("what cannot serve stops the program at start with the variable's name", () => {
  test.each([
    [{ PORT: "70000" }, "PORT must be an integer from 0 to 65535"],
    [{ WEB_CONCURRENCY: "65" }, "WEB_CONCURRENCY must be a whole number from 1 to 64, or auto"],
    [{ SOCIAL_API_WORKER: "first" }, "SOCIAL_API_WORKER is the supervisor's"],
    [{ DATABASE_URL: "mysql://root@localhost/social" }, "DATABASE_URL has the scheme mysql:"],
    [{ SQLITE_SYNCHRONOUS: "OFF" }, "SQLITE_SYNCHRONOUS must be FULL or NORMAL"],
    [{ RATE_LIMIT_RPS: "-1" }, "RATE_LIMIT_RPS must be a number >= 0"],
    [{ RATE_LIMIT_BURST: "1.5" }, "RATE_LIMIT_BURST must be an integer >= 1"],
    [{ REDIS_URL: "http://127.0.0.1:6379" }, "REDIS_URL must be a redis:// or rediss:// URL"],
    [{ REDIS_URL: "127.0.0.1:6379" }, "REDIS_URL must be a redis:// or rediss:// URL"],
    [{ REDIS_URL: "redis://" }, "REDIS_URL must be a redis:// or rediss:// URL"],
    [{ SOCIAL_MCP_MAX_CHARS: "100" }, "SOCIAL_MCP_MAX_CHARS must be a whole number from 4000 to 1000000, not 100"],
    [{ MONITOR_ALLOW_PRIVATE: "yes" }, 'MONITOR_ALLOW_PRIVATE must be true or false, not "yes"'],
    [{ MONITOR_RETRY_BASE_MS: "10" }, "MONITOR_RETRY_BASE_MS must be a whole number of milliseconds from 100"],
    [{ MONITOR_RETRY_BASE_MS: "1e4" }, "MONITOR_RETRY_BASE_MS must be a whole number of milliseconds from 100"],
    [{ MONITOR_MATCH_DAYS: "0" }, "MONITOR_MATCH_DAYS must be a whole number of days from 1"],
    [{ MONITOR_MATCH_DAYS: "1.5" }, "MONITOR_MATCH_DAYS must be a whole number of days from 1"],
  ])("the server: %j", (env, message) => {
    expect(() => readServerConfig(env)).toThrow(message);
  });

  test.each([
    [{ TOKEN_SECRET: "short" }, "TOKEN_SECRET must be at least 32 characters"],
    [{ WORLD: "imported" }, 'WORLD must be generated or empty, not "imported"'],
    [{ REQUEST_LOG_DAYS: "-1" }, "REQUEST_LOG_DAYS must be a whole number of days"],
  ])("a setting both servers read is checked alike by each: %j", (env, message) => {
    expect(() => readServerConfig(env)).toThrow(message);
    expect(() => readMcpStdioConfig(env)).toThrow(message);
  });

  test("a program is not stopped by a variable it does not read", () => {
    expect(readMcpStdioConfig({ PORT: "web", BILLING_URL: "ftp://pay.example" }).databaseUrl).toBe(
      "file:data/social.db",
    );
    expect(readAdminConfig({ WORLD: "imported", DATABASE_URL: "postgres://app@db/social" }).databaseUrl).toBe(
      "postgres://app@db/social",
    );
  });

  test("MONITOR_ALLOW_PRIVATE and MONITOR_RETRY_BASE_MS as set", () => {
    const config = readServerConfig({ MONITOR_ALLOW_PRIVATE: "true", MONITOR_RETRY_BASE_MS: "250" });
    expect(config).toMatchObject({ allowPrivateWebhooks: true, webhookRetryBaseMs: 250 });
    expect(readServerConfig({ MONITOR_ALLOW_PRIVATE: "false" }).allowPrivateWebhooks).toBe(false);
  });

  test("SQLITE_SYNCHRONOUS in either case, and REDIS_URL with credentials", () => {
    expect(readServerConfig({ SQLITE_SYNCHRONOUS: "normal" }).synchronous).toBe("NORMAL");
    const url = "rediss://user:secret@cache.example:6380/2";
    expect(readServerConfig({ REDIS_URL: url }).redisUrl).toBe(url);
  });
});
