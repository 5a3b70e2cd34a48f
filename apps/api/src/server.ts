// Serves the app on the runtime every serving process opens (openRuntime: the backend DATABASE_URL
// selects, its world on first start, the rate limiter, the services) with the dashboard's settings.
import {
  DEFAULT_MONITOR_MATCH_DAYS,
  httpUrl,
  keepMonitorMatches,
  openRuntime,
  type Runtime,
  type ServerConfig,
  VARIABLES,
} from "@social/composition";
import { DEFAULT_RETRY_BASE_MS } from "@social/core";
import { createApp } from "./app.ts";
import type { LogSink } from "./http/request-log.ts";
import { MonitorStreams } from "./monitors/stream.ts";
import { startWebhookDispatcher } from "./monitors/webhook-dispatcher.ts";

/**
 * Request line and headers Bun reads before it answers a bare 431 itself: raised from its 16 KiB so that
 * URLs past MAX_URL_LENGTH get the app's own 400 up to here. Bun takes it per process and only as a
 * flag, so every start of the server passes SERVER_RUNTIME_FLAGS: package.json's start script, the
 * supervisor's workers, the test and bench processes; main.ts warns when it is missing.
 */
export const MAX_HEADER_BYTES = 64 * 1024;
/**
 * `--smol`: the garbage collector runs more often. A page of 5,000 follower ids leaves many short-lived
 * strings behind it, which the default collector lets pile up under many connections; with the flag the
 * peak RSS is lower at the same throughput (`bun run bench` prints both per scenario; the figures are in
 * docs/benchmark-log.md).
 */
export const SERVER_RUNTIME_FLAGS = [`--max-http-header-size=${MAX_HEADER_BYTES}`, "--smol"];
/**
 * The memory JavaScriptCore sizes its heap for, in place of the machine's: sized for the whole machine,
 * its heuristics let large follower pages grow the server's RSS far past what it needs; this budget keeps
 * it down for a little more collection work (the figures are in docs/benchmark-log.md). JavaScriptCore
 * reads it from the environment when the process starts, so `npm start` sets it (an operator may set
 * their own); a server started without it works the same, with more memory.
 */
export const SERVER_HEAP_BUDGET = { BUN_JSC_forceRAMSize: VARIABLES.BUN_JSC_forceRAMSize.default.value };

export interface RunningServer {
  url: string;
  port: number;
  /**
   * Stops accepting connections and delivering webhooks, lets in-flight requests and charges finish,
   * then closes the database.
   */
  stop(): Promise<void>;
}

export interface ServerOptions {
  log?: LogSink;
  onWorldBuild?: () => void;
  /** Where operational warnings go (a rate-limit store outage); stderr when absent. */
  warn?: (message: string) => void;
  /** The time monitor deliveries go by (retries, daily caps, signatures); Date.now when absent. */
  clock?: () => number;
}

const warnOnStderr = (message: string) => console.error(`Warning: ${message}`);

export async function startServer(config: ServerConfig, options: ServerOptions = {}): Promise<RunningServer> {
  const runtime = await openRuntime(config, {
    warn: options.warn ?? warnOnStderr,
    ...(options.onWorldBuild ? { onWorldBuild: options.onWorldBuild } : {}),
  });
  // Whatever fails between opening and listening closes the runtime again.
  try {
    return await serve(config, options, runtime);
  } catch (error) {
    await runtime.close();
    throw error;
  }
}

async function serve(config: ServerConfig, options: ServerOptions, runtime: Runtime): Promise<RunningServer> {
  const { backend } = runtime;
  const dashboard = {
    accounts: backend.accounts,
    sessions: backend.sessions,
    monitors: backend.monitors,
    publicUrl: config.publicUrl,
    requestLogDays: runtime.requestLogDays,
    billing: config.billing ?? { plans: [] },
    sessionSecret: config.sessionSecret ?? (await backend.secret("session_secret")),
    ...(config.oidc ? { oidc: config.oidc } : {}),
  };
  const streams = new MonitorStreams();
  const app = createApp({
    services: runtime.services,
    streams,
    publicUrl: config.publicUrl,
    dashboard,
    ...(config.mcpMaxChars === undefined ? {} : { mcpMaxChars: config.mcpMaxChars }),
    ...(options.log ? { log: options.log } : {}),
    allowPrivateWebhooks: config.allowPrivateWebhooks ?? false,
  });
  // Workers share the port: the kernel spreads connections between them. A lone server does not, so
  // that a second one started by mistake fails with EADDRINUSE instead of splitting the traffic.
  app.listen({ hostname: config.host, port: config.port, reusePort: config.worker !== undefined });
  const server = app.server;
  if (!server) throw new Error("the server did not start");
  const port = server.port ?? config.port;
  const webhooks = startWebhookDispatcher({
    billing: { ledger: backend.ledger, monitors: backend.monitors, keys: backend.accounts },
    store: backend.store,
    allowPrivate: config.allowPrivateWebhooks ?? false,
    retryBaseMs: config.webhookRetryBaseMs ?? DEFAULT_RETRY_BASE_MS,
    clock: options.clock ?? Date.now,
    warn: options.warn ?? warnOnStderr,
  });
  const matchRetention = keepMonitorMatches(
    backend.monitors,
    config.monitorMatchDays ?? DEFAULT_MONITOR_MATCH_DAYS,
    options.warn ?? warnOnStderr,
  );
  return {
    url: httpUrl(config.host, port),
    port,
    async stop() {
      // Bun waits for every answer in flight, and a stream's lasts until it ends: end them first.
      streams.closeAll();
      matchRetention.stop();
      await Promise.all([server.stop(false), webhooks.stop()]);
      await runtime.close();
    },
  };
}
