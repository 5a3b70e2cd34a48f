// A copy of the default fixture world per test file (built once per test process into a template
// file), accounts with keys on it, and MCP clients connected over either transport.
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { readMcpStdioConfig } from "@social/composition";
import { helpLinksOf, type KeyOptions, requestPath } from "@social/core";
import { DEFAULT_WORLD, type WorldOptions } from "@social/fixtures";
import {
  buildWorld,
  createAccount,
  createKey,
  openDatabase,
  revokeKey,
  SqliteLedger,
  sqliteServices,
} from "@social/store-sqlite";
import { afterProcessExit } from "@social/testing";
import { handleMcpRequest } from "../src/http.ts";

export const STDIO_ENTRY = join(import.meta.dir, "..", "src", "stdio.ts");
export const HELP_URL = "http://127.0.0.1/billing";

const templates = new Map<string, string>();

/** A world built once per test process into a template file, copied for each test world. */
function worldTemplate(options: WorldOptions): string {
  const key = JSON.stringify(options);
  let template = templates.get(key);
  if (!template) {
    const dir = mkdtempSync(join(tmpdir(), "social-mcp-world-"));
    afterProcessExit(`rm -rf '${dir}'`);
    template = join(dir, "world.db");
    const db = openDatabase(template);
    buildWorld(db, options);
    db.close();
    templates.set(key, template);
  }
  return template;
}

export interface TestAccount {
  accountId: string;
  key: string;
  keyId: string;
}

/** Rate-limit settings as the environment gives them; the default turns limiting off. */
export type RateLimitEnv = { RATE_LIMIT_RPS: string; RATE_LIMIT_BURST?: string };

export interface ConnectOptions {
  key: string;
  toolsets?: string;
  tools?: string;
  rateLimit?: RateLimitEnv;
  /** SOCIAL_MCP_MAX_CHARS. */
  maxChars?: number;
}

export interface Connection {
  client: Client;
  close(): Promise<void>;
}

export type Connect = (options: ConnectOptions) => Promise<Connection>;

export interface TestWorld {
  databaseUrl: string;
  /** An account with `credits` and one key, made with `keyOptions` (a limit, an expiry). */
  account(credits?: number, keyOptions?: KeyOptions): TestAccount;
  revoke(keyId: string): void;
  balance(accountId: string): Promise<number>;
  close(): void;
}

/** A copy of the world `options` builds, or of an already built world's file (`built`). */
export function openTestWorld(options: WorldOptions = DEFAULT_WORLD, built?: string): TestWorld {
  const dir = mkdtempSync(join(tmpdir(), "social-mcp-test-"));
  const databaseUrl = join(dir, "social.db");
  copyFileSync(built ?? worldTemplate(options), databaseUrl);
  const db = openDatabase(databaseUrl);
  const ledger = new SqliteLedger(db);
  return {
    databaseUrl,
    account(credits = 1000, keyOptions = {}) {
      const account = createAccount(db, "mcp test", credits);
      const { key, keyId } = createKey(db, account.id, "mcp test key", keyOptions);
      return { accountId: account.id, key, keyId };
    },
    revoke(keyId) {
      revokeKey(db, keyId);
    },
    balance: (accountId) => ledger.balance(accountId),
    close() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const NO_RATE_LIMIT: RateLimitEnv = { RATE_LIMIT_RPS: "0" };

function newClient(): Client {
  return new Client({ name: "social-mcp-test", version: "1.0.0" });
}

export function stdioEnvironment(world: TestWorld, options: Partial<ConnectOptions>): Record<string, string> {
  return {
    ...getDefaultEnvironment(),
    DATABASE_URL: world.databaseUrl,
    ...(options.rateLimit ?? NO_RATE_LIMIT),
    ...(options.key === undefined ? {} : { SOCIAL_API_KEY: options.key }),
    ...(options.toolsets === undefined ? {} : { SOCIAL_TOOLSETS: options.toolsets }),
    ...(options.tools === undefined ? {} : { SOCIAL_TOOLS: options.tools }),
    ...(options.maxChars === undefined ? {} : { SOCIAL_MCP_MAX_CHARS: String(options.maxChars) }),
  };
}

/** The real binary, spawned as an MCP client would spawn it. */
export function stdioConnector(world: TestWorld): Connect {
  return async (options) => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [STDIO_ENTRY],
      env: stdioEnvironment(world, options),
      stderr: "pipe",
    });
    const client = newClient();
    await client.connect(transport);
    return { client, close: () => client.close() };
  };
}

export interface McpHttpServer {
  url: URL;
  stop(): Promise<void>;
}

/** A real HTTP server on a free loopback port that routes /mcp to handleMcpRequest, as the API does. */
export async function startMcpHttpServer(
  world: TestWorld,
  rateLimit = NO_RATE_LIMIT,
  maxChars?: number,
): Promise<McpHttpServer> {
  const services = await sqliteServices(openDatabase(world.databaseUrl), {
    rateLimit: readMcpStdioConfig(rateLimit).rateLimit,
  });
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request, server) =>
      requestPath(request.url) === "/mcp"
        ? handleMcpRequest(request, services, {
            helpLinks: helpLinksOf(new URL(HELP_URL).origin),
            anonymousRate: () => services.limiter.take(`address:${server.requestIP(request)?.address}`),
            ...(maxChars === undefined ? {} : { maxChars }),
          })
        : new Response("not found", { status: 404 }),
  });
  return { url: new URL("/mcp", server.url), stop: () => server.stop(true) };
}

export function httpConnector(world: TestWorld): Connect {
  return async (options) => {
    const server = await startMcpHttpServer(world, options.rateLimit, options.maxChars);
    const url = new URL(server.url);
    if (options.toolsets !== undefined) url.searchParams.set("toolsets", options.toolsets);
    if (options.tools !== undefined) url.searchParams.set("tools", options.tools);
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${options.key}` } },
    });
    const client = newClient();
    await client.connect(transport);
    return {
      client,
      async close() {
        await client.close();
        await server.stop();
      },
    };
  };
}
