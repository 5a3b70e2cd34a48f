// `bun run start`: serve the API on HOST:PORT over DATABASE_URL until SIGTERM or SIGINT, from one
// process, or from WEB_CONCURRENCY worker processes under a supervisor (supervisor.ts).
import { maxHeaderSize } from "node:http";
import { readServerConfig, type ServerConfig } from "@social/composition";
import { banner } from "./banner.ts";
import { MAX_HEADER_BYTES, type RunningServer, SERVER_RUNTIME_FLAGS, startServer } from "./server.ts";
import { supervise, type WorkerReady } from "./supervisor.ts";

if (maxHeaderSize < MAX_HEADER_BYTES) {
  console.error(
    `Warning: Bun reads at most ${maxHeaderSize} bytes of request headers, so longer URLs get its bare 431 instead of the API's 400: start with ${SERVER_RUNTIME_FLAGS.join(" ")} (npm start does)`,
  );
}

/** A configuration or database that cannot serve is one line for the operator, not a stack trace. */
function cannotStart(error: unknown): never {
  console.error(`Cannot start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

async function serve(config: ServerConfig): Promise<RunningServer> {
  try {
    return await startServer(config, {
      onWorldBuild: () => console.error("First start: building the default fixture world (a few seconds)…"),
    });
  } catch (error) {
    cannotStart(error);
  }
}

/** Stops accepting, lets in-flight requests finish, closes the database, exits. */
function stopOn(server: RunningServer, events: { signals: readonly NodeJS.Signals[]; disconnect: boolean }): void {
  let stopping = false;
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    console.error(`${why}: finishing in-flight requests…`);
    await server.stop();
    process.exit(0);
  };
  for (const signal of events.signals) process.on(signal, () => void stop(signal));
  // A worker whose supervisor is gone (killed outright) would otherwise serve on, unsupervised.
  if (events.disconnect) process.on("disconnect", () => void stop("supervisor gone"));
}

const config = (() => {
  try {
    return readServerConfig(process.env);
  } catch (error) {
    cannotStart(error);
  }
})();

if (config.worker !== undefined) {
  const server = await serve(config);
  // SIGINT reaches a worker from the terminal too (the whole process group gets it); the supervisor's
  // SIGTERM is the one it acts on.
  stopOn(server, { signals: ["SIGTERM", "SIGINT"], disconnect: true });
  console.error(`worker ${config.worker} (pid ${process.pid}) serves ${server.url}`);
  process.send?.({ listening: server.url, port: server.port } satisfies WorkerReady);
} else if ((config.workers ?? 1) > 1) {
  await supervise(config, config.workers ?? 1);
} else {
  const server = await serve(config);
  console.error(banner(config, server.url));
  stopOn(server, { signals: ["SIGTERM", "SIGINT"], disconnect: false });
}
