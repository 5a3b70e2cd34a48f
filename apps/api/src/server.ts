// Opens the database, builds the default fixture world on first start, and serves the app.
import { DEFAULT_WORLD } from "@social/fixtures";
import {
  buildWorld,
  hasWorld,
  openDatabase,
  SqliteAccounts,
  SqliteSessions,
  sqliteServices,
} from "@social/store-sqlite";
import { createApp } from "./app.ts";
import type { ServerConfig } from "./config.ts";
import type { LogSink } from "./http/request-log.ts";

/**
 * Request line and headers Bun reads before it answers a bare 431 itself: raised from its 16 KiB so that
 * URLs past MAX_URL_LENGTH get the app's own 400 up to here. Bun takes it per process and only as a
 * flag, so every start of the server passes SERVER_RUNTIME_FLAGS: package.json's start and test scripts,
 * the test and bench processes; main.ts warns when it is missing.
 */
export const MAX_HEADER_BYTES = 64 * 1024;
export const SERVER_RUNTIME_FLAGS = [`--max-http-header-size=${MAX_HEADER_BYTES}`];

export interface RunningServer {
  url: string;
  port: number;
  /** Stops accepting connections, lets in-flight requests finish, then closes the database. */
  stop(): Promise<void>;
}

export async function startServer(
  config: ServerConfig,
  options: { log?: LogSink; onWorldBuild?: () => void } = {},
): Promise<RunningServer> {
  const db = openDatabase(config.databaseUrl, { synchronous: config.synchronous });
  if (!hasWorld(db)) {
    options.onWorldBuild?.();
    buildWorld(db, DEFAULT_WORLD);
  }
  const services = await sqliteServices(db, { tokenSecret: config.tokenSecret, rateLimit: config.rateLimit });
  const accounts = new SqliteAccounts(db);
  const dashboard = {
    accounts,
    sessions: new SqliteSessions(db),
    publicUrl: config.publicUrl,
    sessionSecret: config.sessionSecret ?? (await accounts.secret("session_secret")),
    ...(config.oidc ? { oidc: config.oidc } : {}),
  };
  const app = createApp({
    services,
    publicUrl: config.publicUrl,
    dashboard,
    ...(options.log ? { log: options.log } : {}),
  });
  app.listen({ hostname: config.host, port: config.port });
  const server = app.server;
  if (!server) throw new Error("the server did not start");
  const port = server.port ?? config.port;
  return {
    url: `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`,
    port,
    async stop() {
      await server.stop(false);
      db.close();
    },
  };
}
