// The stdio MCP server: `bun run mcp`. Configuration comes from the environment (DATABASE_URL, WORLD,
// SOCIAL_API_KEY, SOCIAL_TOOLSETS, SOCIAL_TOOLS, SOCIAL_MCP_MAX_CHARS, and TOKEN_SECRET / RATE_LIMIT_* /
// REDIS_URL as for the HTTP server). stdout
// carries the protocol and nothing else; everything for people goes to stderr.
import { existsSync } from "node:fs";
import {
  backendServices,
  checkedRedisUrl,
  DEFAULT_DATABASE_URL,
  keepRequestLog,
  openBackend,
  openRateLimiter,
  prepareWorld,
  requestLogDaysFrom,
  synchronousFrom,
  worldSourceFrom,
} from "@social/composition";
import { ApiError, parseDatabaseUrl, rateLimitFromEnv } from "@social/core";
import { checkConnectionKey } from "./auth.ts";
import { createMcpServer, maxCharsFrom } from "./server.ts";
import { AnsweringStdioTransport } from "./stdio-transport.ts";
import { parseNames, selectTools } from "./tools.ts";

function fail(message: string): never {
  console.error(`social-data-api MCP server: ${message}`);
  process.exit(1);
}

async function main(env: Record<string, string | undefined>): Promise<void> {
  const selection = selectTools({ toolsets: parseNames(env.SOCIAL_TOOLSETS), tools: parseNames(env.SOCIAL_TOOLS) });
  const maxChars = maxCharsFrom(env.SOCIAL_MCP_MAX_CHARS);
  const databaseUrl = env.DATABASE_URL || DEFAULT_DATABASE_URL;
  const world = worldSourceFrom(env.WORLD);
  // Opening a missing SQLite file would create an empty database, and the key check would then report
  // a bad key where the real mistake is the path. A PostgreSQL database is the operator's to create,
  // and one that cannot be reached fails as it opens.
  const location = parseDatabaseUrl(databaseUrl);
  if (location.kind === "sqlite" && location.path !== ":memory:" && !existsSync(location.path)) {
    fail(
      `no database at ${location.path} (DATABASE_URL=${databaseUrl}); create a key with \`npm run admin -- keys create\`, which creates it`,
    );
  }
  const rateLimit = rateLimitFromEnv(env.RATE_LIMIT_RPS, env.RATE_LIMIT_BURST);
  const redisUrl = env.REDIS_URL ? checkedRedisUrl(env.REDIS_URL) : undefined;
  const backend = await openBackend(databaseUrl, {
    synchronous: synchronousFrom(env.SQLITE_SYNCHRONOUS),
    serving: true,
  });
  // The agent's key shares its limit with its HTTP traffic when the buckets are in Redis.
  const rateLimiter = await openRateLimiter({
    rateLimit,
    redisUrl,
    processes: 1,
    warn: (message) => console.error(`social-data-api MCP server: ${message}`),
  });
  // The agent's calls go to its account's request log, as its HTTP requests do, kept as long.
  const requestLogDays = requestLogDaysFrom(env.REQUEST_LOG_DAYS);
  const services = await backendServices(backend, {
    tokenSecret: env.TOKEN_SECRET,
    limiter: rateLimiter.limiter,
    logRequests: requestLogDays > 0,
  });
  const retention =
    requestLogDays > 0
      ? keepRequestLog(backend.requestLog, requestLogDays, (message) =>
          console.error(`social-data-api MCP server: ${message}`),
        )
      : undefined;
  const connection = await checkConnectionKey(
    services.ledger,
    env.SOCIAL_API_KEY,
    "set the SOCIAL_API_KEY environment variable to an API key from the dashboard",
  );
  if (connection instanceof ApiError) fail(connection.message);
  // As the HTTP server does on its first start, so that a key made with the CLI alone is enough.
  await prepareWorld(backend, world, () =>
    console.error("social-data-api MCP server: building the default fixture world (a few seconds)…"),
  );

  const transport = new AnsweringStdioTransport();
  const server = createMcpServer(services, {
    apiKey: connection.apiKey,
    selection,
    maxChars,
    answerSignal: (callId) => transport.answerSignal(callId),
    logError: (message, error) => console.error(message, error),
  });

  // The session ends when the client closes stdin (or stdout), once the calls read are answered, or on
  // a signal, which loses the calls still running (not charged, or refunded). An open PostgreSQL pool
  // would keep the process alive (and its connections held), so the backend is closed before leaving;
  // closing waits for the ledger's writes, those refunds included.
  let stopping = false;
  server.onclose = async () => {
    if (stopping) return;
    stopping = true;
    retention?.stop();
    rateLimiter.close();
    await backend.close();
    process.exit(0);
  };
  await server.connect(transport);
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => transport.stop());
  console.error(`social-data-api MCP server: ${selection.tools.length} tools on stdio`);
}

main(process.env).catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));
