// The stdio MCP server: `bun run mcp`. Configuration comes from the environment (DATABASE_URL,
// SOCIAL_API_KEY, SOCIAL_TOOLSETS, and TOKEN_SECRET / RATE_LIMIT_* as for the HTTP server). stdout
// carries the protocol and nothing else; everything for people goes to stderr.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ApiError } from "@social/core";
import { checkConnectionKey } from "./auth.ts";
import { createMcpServer } from "./server.ts";
import { openServices } from "./services.ts";
import { parseToolsets, selectTools } from "./tools.ts";

function fail(message: string): never {
  console.error(`social-data-api MCP server: ${message}`);
  process.exit(1);
}

async function main(env: Record<string, string | undefined>): Promise<void> {
  const tools = selectTools(parseToolsets(env.SOCIAL_TOOLSETS));
  const services = await openServices(env);
  const apiKey = await checkConnectionKey(
    services.ledger,
    env.SOCIAL_API_KEY,
    "set the SOCIAL_API_KEY environment variable to an API key from the dashboard",
  );
  if (apiKey instanceof ApiError) fail(apiKey.message);

  const server = createMcpServer(services, {
    apiKey,
    tools,
    logError: (message, error) => console.error(message, error),
  });
  await server.connect(new StdioServerTransport());
  console.error(`social-data-api MCP server: ${tools.length} tools on stdio`);
}

main(process.env).catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));
