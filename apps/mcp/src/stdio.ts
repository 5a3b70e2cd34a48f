// The stdio MCP server: `bun run mcp`. Configuration comes from the environment (DATABASE_URL,
// SOCIAL_API_KEY, SOCIAL_TOOLSETS, and TOKEN_SECRET / RATE_LIMIT_* as for the HTTP server). stdout
// carries the protocol and nothing else; everything for people goes to stderr.
import { existsSync } from "node:fs";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ApiError, rateLimitFromEnv } from "@social/core";
import { DEFAULT_WORLD } from "@social/fixtures";
import {
  buildWorld,
  DEFAULT_DATABASE_URL,
  databasePath,
  hasWorld,
  openDatabase,
  sqliteServices,
  synchronousFrom,
} from "@social/store-sqlite";
import { checkConnectionKey } from "./auth.ts";
import { createMcpServer } from "./server.ts";
import { parseToolsets, selectTools } from "./tools.ts";

function fail(message: string): never {
  console.error(`social-data-api MCP server: ${message}`);
  process.exit(1);
}

async function main(env: Record<string, string | undefined>): Promise<void> {
  const tools = selectTools(parseToolsets(env.SOCIAL_TOOLSETS));
  const databaseUrl = env.DATABASE_URL || DEFAULT_DATABASE_URL;
  // Opening a missing file would create an empty database, and the key check would then report a
  // bad key where the real mistake is the path.
  const path = databasePath(databaseUrl);
  if (path !== ":memory:" && !existsSync(path)) {
    fail(
      `no database at ${path} (DATABASE_URL=${databaseUrl}); create a key with \`npm run admin -- keys create\`, which creates it`,
    );
  }
  const db = openDatabase(databaseUrl, { synchronous: synchronousFrom(env.SQLITE_SYNCHRONOUS) });
  const services = await sqliteServices(db, {
    tokenSecret: env.TOKEN_SECRET,
    rateLimit: rateLimitFromEnv(env.RATE_LIMIT_RPS, env.RATE_LIMIT_BURST),
  });
  const connection = await checkConnectionKey(
    services.ledger,
    env.SOCIAL_API_KEY,
    "set the SOCIAL_API_KEY environment variable to an API key from the dashboard",
  );
  if (connection instanceof ApiError) fail(connection.message);
  // As the HTTP server does on its first start, so that a key made with the CLI alone is enough.
  if (!hasWorld(db)) {
    console.error("social-data-api MCP server: building the default fixture world (a few seconds)…");
    buildWorld(db, DEFAULT_WORLD);
  }

  const server = createMcpServer(services, {
    apiKey: connection.apiKey,
    tools,
    logError: (message, error) => console.error(message, error),
  });
  await server.connect(new StdioServerTransport());
  console.error(`social-data-api MCP server: ${tools.length} tools on stdio`);
}

main(process.env).catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));
