// The composition root every serving process (the HTTP server, the MCP stdio server) starts from: the
// database DATABASE_URL names, the rate limiter, the pipeline's services on them, a world when the
// database has none, and the request log's retention, opened in that order and closed in reverse.
import type { Services } from "@social/core";
import type { Backend } from "./backend.ts";
import type { RuntimeConfig } from "./config/read.ts";
import { DEFAULT_REQUEST_LOG_DAYS } from "./config/values.ts";
import { openBackend } from "./open.ts";
import { openRateLimiter } from "./rate-limiter.ts";
import { keepRequestLog } from "./retention.ts";
import { backendServices } from "./services.ts";
import { prepareWorld } from "./world-source.ts";

export interface RuntimeOptions {
  /** Where operational warnings go (Redis out, a purge that failed). */
  warn: (message: string) => void;
  /** Told before a generated world is built: the first start takes seconds. */
  onWorldBuild?: () => void;
  /**
   * What must pass before a world is built (the MCP server's key check): a process that will not serve
   * builds none. Throwing closes what was opened and rejects openRuntime with the error.
   */
  admit?: (services: Services) => Promise<void>;
}

export interface Runtime {
  backend: Backend;
  services: Services;
  /** 0: no request log is kept. */
  requestLogDays: number;
  /** Stops the retention and the rate limiter, waits for the ledger's writes, closes the database. */
  close(): Promise<void>;
}

export async function openRuntime(config: RuntimeConfig, options: RuntimeOptions): Promise<Runtime> {
  const backend = await openBackend(config.databaseUrl, { synchronous: config.synchronous, serving: true });
  // Whatever fails before serving closes what was opened: a PostgreSQL pool or a Redis connection left
  // open would keep a process that reported the failure alive.
  const rateLimiter = await openRateLimiter({
    rateLimit: config.rateLimit,
    redisUrl: config.redisUrl,
    processes: config.workers ?? 1,
    warn: options.warn,
  }).catch(async (error: unknown) => {
    await backend.close();
    throw error;
  });
  try {
    const requestLogDays = config.requestLogDays ?? DEFAULT_REQUEST_LOG_DAYS;
    const services = await backendServices(backend, {
      tokenSecret: config.tokenSecret,
      limiter: rateLimiter.limiter,
      logRequests: requestLogDays > 0,
    });
    await options.admit?.(services);
    await prepareWorld(backend, config.world ?? "generated", options.onWorldBuild);
    const retention = requestLogDays > 0 ? keepRequestLog(backend.requestLog, requestLogDays, options.warn) : undefined;
    return {
      backend,
      services,
      requestLogDays,
      async close() {
        retention?.stop();
        rateLimiter.close();
        await backend.close();
      },
    };
  } catch (error) {
    rateLimiter.close();
    await backend.close();
    throw error;
  }
}
