// WEB_CONCURRENCY=N: N server processes on one port (reusePort: the kernel spreads connections between
// them) under this supervisor, which holds no database and serves nothing itself. It starts worker 1
// alone (once nothing else holds the port), so that a first start migrates and builds the world once, then the others on the port worker 1
// reported; restarts a worker that dies; forwards SIGTERM/SIGINT so that every worker drains; and gives
// up with exit 1 when workers keep dying before they serve (a configuration or database that cannot).
import { join } from "node:path";
import type { ServerConfig, VariableName } from "@social/composition";
import type { Subprocess } from "bun";
import { banner } from "./banner.ts";
import { SERVER_RUNTIME_FLAGS } from "./server.ts";

const MAIN = join(import.meta.dir, "main.ts");
/** Deaths before serving, in a row, after which restarting is pointless. */
const MAX_START_FAILURES = 5;
const MAX_RESTART_DELAY_MS = 5_000;

/** What a worker tells its supervisor, over IPC, once it serves. */
export interface WorkerReady {
  listening: string;
  port: number;
}

interface Slot {
  index: number;
  child?: Subprocess<"ignore", "inherit", "inherit">;
  /** Deaths before serving since this slot last served. */
  failures: number;
}

/** What a worker is told through its environment: the port to share, and which worker it is. */
function workerEnvironment(port: number, index: number): Partial<Record<VariableName, string>> {
  return { PORT: String(port), SOCIAL_API_WORKER: String(index) };
}

function say(message: string): void {
  console.error(`supervisor: ${message}`);
}

function exitDescription(child: Subprocess): string {
  return child.signalCode ? `was killed by ${child.signalCode}` : `exited with code ${child.exitCode}`;
}

/**
 * Whether something already listens on host:port. Workers bind with reusePort, which lets any process of
 * the same user join a port: a second deployment started there by mistake would take half of the
 * connections, answering with its own keys and database. A bind without it is refused by any listener,
 * so it is asked once before this supervisor's own workers hold the port.
 */
function portTaken(host: string, port: number): boolean {
  if (port === 0) return false;
  try {
    Bun.listen({ hostname: host, port, socket: { data() {} } }).stop(true);
    return false;
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "EADDRINUSE") return true;
    throw error;
  }
}

export async function supervise(config: ServerConfig, workers: number): Promise<void> {
  if (portTaken(config.host, config.port)) {
    console.error(
      `Cannot start: ${config.host}:${config.port} is in use by another process; its workers would share the port with it and split the connections. Stop it, or choose another PORT`,
    );
    process.exit(1);
  }
  const slots: Slot[] = Array.from({ length: workers }, (_, index) => ({ index: index + 1, failures: 0 }));
  let port = config.port;
  let stopping = false;

  /** Resolves once the worker serves; rejects if it dies first. Its later death restarts it. */
  function start(slot: Slot): Promise<WorkerReady> {
    return new Promise((resolve, reject) => {
      let ready = false;
      const child = Bun.spawn([process.execPath, ...SERVER_RUNTIME_FLAGS, MAIN], {
        env: { ...process.env, ...workerEnvironment(port, slot.index) },
        stdin: "ignore",
        stdout: "inherit",
        stderr: "inherit",
        ipc(message: WorkerReady) {
          ready = true;
          slot.failures = 0;
          resolve(message);
        },
      });
      slot.child = child;
      void child.exited.then(() => {
        if (!ready) reject(new Error(`worker ${slot.index} ${exitDescription(child)} before serving`));
        else if (!stopping) restart(slot, `worker ${slot.index} (pid ${child.pid}) ${exitDescription(child)}`);
      });
    });
  }

  function restart(slot: Slot, why: string): void {
    if (stopping) return;
    if (slot.failures >= MAX_START_FAILURES) {
      say(`${why}; workers keep dying before they serve (${slot.failures} times in a row): stopping`);
      void stopAll(1);
      return;
    }
    const delay = Math.min(100 * 2 ** slot.failures, MAX_RESTART_DELAY_MS);
    say(`${why}; restarting it in ${delay} ms`);
    setTimeout(() => {
      if (stopping) return;
      start(slot).then(
        () => say(`worker ${slot.index} (pid ${slot.child?.pid}) serves again`),
        (error: Error) => {
          slot.failures++;
          restart(slot, error.message);
        },
      );
    }, delay);
  }

  let stopped: Promise<void> | undefined;
  function stopAll(code: number): Promise<void> {
    stopping = true;
    stopped ??= (async () => {
      const running = slots.flatMap((slot) => (slot.child && slot.child.exitCode === null ? [slot.child] : []));
      for (const child of running) child.kill("SIGTERM");
      await Promise.all(running.map((child) => child.exited));
      process.exit(code);
    })();
    return stopped;
  }

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      if (stopping) return;
      say(`${signal}: every worker finishes its in-flight requests…`);
      void stopAll(0);
    });
  }

  try {
    const [first, ...others] = slots as [Slot, ...Slot[]];
    const ready = await start(first);
    port = ready.port;
    await Promise.all(others.map(start));
    console.error(
      banner(
        config,
        ready.listening,
        slots.map((slot) => slot.child?.pid ?? 0),
      ),
    );
  } catch (error) {
    if (stopping) return;
    say(`${error instanceof Error ? error.message : String(error)}: stopping`);
    await stopAll(1);
  }
}
