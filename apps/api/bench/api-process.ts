// The real API server as the benchmarks run it: its own process (a supervisor and its workers with
// WEB_CONCURRENCY above 1), started as `bun run start` starts it, on loopback, rate limits off.
import { join, resolve } from "node:path";
import { SERVER_HEAP_BUDGET, SERVER_RUNTIME_FLAGS } from "../src/server.ts";

const root = resolve(import.meta.dir, "../../..");

export interface ApiOptions {
  port: number;
  databaseUrl: string;
  synchronous?: "NORMAL" | "FULL";
  /** WEB_CONCURRENCY. */
  workers?: number;
  /** The cores it runs on (a taskset list); all of them when absent. */
  cores?: string;
}

/** Waits until `url` answers anything but a 5xx, for up to 30 s. */
export async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {}
    await Bun.sleep(100);
  }
  throw new Error(`${url} did not come up`);
}

/** The API on options.port; once every worker serves (the banner, printed when all of them do). */
export async function startApi(options: ApiOptions): Promise<Bun.Subprocess> {
  const said = join(root, "data/bench/api.err");
  const argv = [process.execPath, ...SERVER_RUNTIME_FLAGS, join(root, "apps/api/src/main.ts")];
  const workers = options.workers ?? 1;
  const child = Bun.spawn(options.cores === undefined ? argv : ["taskset", "-c", options.cores, ...argv], {
    env: {
      ...process.env,
      ...SERVER_HEAP_BUDGET,
      PORT: String(options.port),
      HOST: "127.0.0.1",
      DATABASE_URL: options.databaseUrl,
      RATE_LIMIT_RPS: "0",
      SQLITE_SYNCHRONOUS: options.synchronous ?? "FULL",
      WEB_CONCURRENCY: String(workers),
    },
    stdout: "ignore",
    stderr: Bun.file(said),
  });
  await waitFor(`http://127.0.0.1:${options.port}/openapi.json`);
  while (!(await Bun.file(said).text()).includes("listening on")) await Bun.sleep(100);
  return child;
}

export async function stopApi(child: Bun.Subprocess): Promise<void> {
  child.kill("SIGTERM");
  await child.exited;
}
