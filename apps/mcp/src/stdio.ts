// The stdio MCP server: `bun run mcp`. Its configuration is the environment, as readMcpStdioConfig
// reads it (docs/configuration.md lists what it reads). stdout carries the protocol and nothing else;
// everything for people goes to stderr.
import { existsSync } from "node:fs";
import { type Environment, openRuntime, readMcpStdioConfig } from "@social/composition";
import { parseDatabaseUrl } from "@social/core";
import { checkConnectionKey } from "./auth.ts";
import { createMcpServer } from "./server.ts";
import { AnsweringStdioTransport } from "./stdio-transport.ts";
import { parseNames, selectTools } from "./tools.ts";

function say(message: string): void {
  console.error(`social-data-api MCP server: ${message}`);
}

function fail(message: string): never {
  say(message);
  process.exit(1);
}

/**
 * Opening a missing SQLite file would create an empty database, and the key check would then report a
 * bad key where the real mistake is the path. A PostgreSQL database is the operator's to create, and
 * one that cannot be reached fails as it opens.
 */
function requireDatabaseFile(databaseUrl: string): void {
  const location = parseDatabaseUrl(databaseUrl);
  if (location.kind === "sqlite" && location.path !== ":memory:" && !existsSync(location.path)) {
    fail(
      `no database at ${location.path} (DATABASE_URL=${databaseUrl}); create a key with \`npm run admin -- keys create\`, which creates it`,
    );
  }
}

async function main(env: Environment): Promise<void> {
  const config = readMcpStdioConfig(env);
  const selection = selectTools({ toolsets: parseNames(config.toolsets), tools: parseNames(config.tools) });
  requireDatabaseFile(config.databaseUrl);
  // The agent's key shares its limit with its HTTP traffic when the buckets are in Redis, and its calls
  // go to its account's request log, as its HTTP requests do, kept as long.
  let apiKey = "";
  const runtime = await openRuntime(config, {
    warn: say,
    // Before the world is built, as the HTTP server does on its first start, so that a key made with
    // the CLI alone is enough and a bad key builds nothing.
    admit: async (services) => {
      const connection = await checkConnectionKey(
        services.ledger,
        config.apiKey,
        "set the SOCIAL_API_KEY environment variable to an API key from the dashboard",
      );
      if (connection instanceof Error) throw connection;
      apiKey = connection.apiKey;
    },
    onWorldBuild: () => say("building the default fixture world (a few seconds)…"),
  });

  const transport = new AnsweringStdioTransport();
  const server = createMcpServer(runtime.services, {
    apiKey,
    selection,
    maxChars: config.maxChars,
    answerSignal: (callId) => transport.answerSignal(callId),
    logError: (message, error) => console.error(message, error),
  });

  // The session ends when the client closes stdin (or stdout), once the calls read are answered, or on
  // a signal, which loses the calls still running (not charged, or refunded). An open PostgreSQL pool
  // would keep the process alive (and its connections held), so the runtime is closed before leaving;
  // closing waits for the ledger's writes, those refunds included.
  let stopping = false;
  server.onclose = async () => {
    if (stopping) return;
    stopping = true;
    await runtime.close();
    process.exit(0);
  };
  await server.connect(transport);
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => transport.stop());
  say(`${selection.tools.length} tools on stdio`);
}

main(process.env).catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));
