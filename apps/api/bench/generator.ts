// The load generators of `bun run bench`. Pinned (the method of issue #20): the server under test runs
// on core 0 and Debian's `wrk` on core 1, so the two never take turns on one core and every figure is
// what one server core serves. When `taskset` or `wrk` is missing, the Bun-fetch generator (load.ts)
// runs unpinned, sharing the cores with the server: its figures are lower and noisier, and say so.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  /** Answers that were not 2xx or 3xx, plus socket errors and timeouts. */
  failures: number;
}

export interface LoadOptions {
  seconds: number;
  connections: number;
  /** Sent as `authorization: Bearer <key>` on every request. */
  key?: string;
  /** The cores wrk runs on (a taskset list) and its thread count; the generator's core and 1 by default. */
  cores?: string;
  threads?: number;
}

export const SERVER_CORE = "0";
const GENERATOR_CORE = "1";

/** True when the pinned method can run: two cores, `taskset` and `wrk` on PATH. */
export const pinned = navigator.hardwareConcurrency >= 2 && Bun.which("taskset") !== null && Bun.which("wrk") !== null;

/** The command that runs `argv` on the server's core when pinned, unchanged otherwise. */
export function onServerCore(argv: string[]): string[] {
  return pinned ? ["taskset", "-c", SERVER_CORE, ...argv] : argv;
}

/**
 * Pins this process's every thread to the server's core for the duration of `work` (the in-process
 * baseline must have the one core the server gets), then gives it all cores back.
 */
export async function onServerCoreHere<T>(work: () => Promise<T>): Promise<T> {
  if (!pinned) return work();
  const all = `0-${navigator.hardwareConcurrency - 1}`;
  Bun.spawnSync(["taskset", "-a", "-cp", SERVER_CORE, String(process.pid)], { stdout: "ignore" });
  try {
    return await work();
  } finally {
    Bun.spawnSync(["taskset", "-a", "-cp", all, String(process.pid)], { stdout: "ignore" });
  }
}

/** A closed-loop load over `urls` (taken in turn, all on one origin) for `options.seconds`. */
export function load(urls: string[], options: LoadOptions): Promise<LoadResult> {
  return pinned ? wrkLoad(urls, options) : fetchLoad(urls, options);
}

// wrk takes the paths in turn and reports through done() as one JSON line, latencies in microseconds.
const WRK_SCRIPT = (paths: string[]) => `
local paths = { ${paths.map((path) => JSON.stringify(path)).join(", ")} }
local next = 0
request = function()
  next = next % #paths + 1
  return wrk.format("GET", paths[next])
end
done = function(summary, latency, requests)
  local failures = summary.errors.status + summary.errors.connect + summary.errors.read
    + summary.errors.write + summary.errors.timeout
  io.write(string.format('{"requests":%d,"us":%d,"p50":%f,"p99":%f,"failures":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), failures))
end
`;

async function wrkLoad(urls: string[], options: LoadOptions): Promise<LoadResult> {
  const first = new URL(urls[0] as string);
  const folder = mkdtempSync(join(tmpdir(), "bench-wrk-"));
  const script = join(folder, "paths.lua");
  writeFileSync(script, WRK_SCRIPT(urls.map((url) => new URL(url).pathname + new URL(url).search)));
  try {
    const argv = ["taskset", "-c", options.cores ?? GENERATOR_CORE, "wrk", `-t${options.threads ?? 1}`];
    argv.push(`-c${options.connections}`);
    argv.push(`-d${options.seconds}s`, "--timeout", "10s", "-s", script);
    if (options.key) argv.push("-H", `authorization: Bearer ${options.key}`);
    argv.push(first.origin);
    const child = Bun.spawn(argv, { stdout: "pipe", stderr: "inherit" });
    const output = await new Response(child.stdout).text();
    if ((await child.exited) !== 0) throw new Error(`wrk failed: ${output}`);
    const line = output.split("\n").find((text) => text.startsWith('{"requests"'));
    if (!line) throw new Error(`wrk printed no summary: ${output}`);
    const summary = JSON.parse(line) as { requests: number; us: number; p50: number; p99: number; failures: number };
    return {
      requests: summary.requests,
      rps: summary.requests / (summary.us / 1e6),
      p50: summary.p50 / 1000,
      p99: summary.p99 / 1000,
      failures: summary.failures,
    };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

async function fetchLoad(urls: string[], options: LoadOptions): Promise<LoadResult> {
  const argv = [process.execPath, join(import.meta.dir, "load.ts"), "--seconds", String(options.seconds)];
  argv.push("--connections", String(options.connections));
  if (options.key) argv.push("--key", options.key);
  for (const url of urls) argv.push("--url", url);
  const child = Bun.spawn(argv, { stdout: "pipe", stderr: "inherit" });
  const text = await new Response(child.stdout).text();
  await child.exited;
  return JSON.parse(text) as LoadResult;
}

/** The median of each figure over rounds of the same scenario; failures summed, so none is hidden. */
export function median(rounds: readonly LoadResult[]): LoadResult {
  const middle = <T>(values: T[], by: (value: T) => number) =>
    values.sort((a, b) => by(a) - by(b))[Math.floor(values.length / 2)] as T;
  const pick = (field: keyof LoadResult) => middle([...rounds], (round) => round[field])[field];
  return {
    requests: pick("requests"),
    rps: pick("rps"),
    p50: pick("p50"),
    p99: pick("p99"),
    failures: rounds.reduce((sum, round) => sum + round.failures, 0),
  };
}
