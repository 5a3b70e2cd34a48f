// One figure of the workers scenario (workers.ts) and the table of them: a fresh API with N workers,
// warmed up, then a measured load, with what it cost the API processes and the database server.
import { join } from "node:path";
import type { Synchronous } from "@social/composition";
import { type ApiOptions, startApi, stopApi, waitFor } from "./api-process.ts";
import { load } from "./generator.ts";
import { PostgresProbe } from "./postgres-probe.ts";
import { cpuSeconds, processTree, readCalls } from "./proc.ts";

export interface Figures {
  adapter: string;
  workers: number;
  round: number;
  rps: number;
  p99: number;
  failures: number;
  apiCpuUs: number;
  /** The database server's CPU per request; undefined for SQLite (in the API's processes) or unseen. */
  databaseCpuUs: number | undefined;
  readsPerRequest: number;
  /**
   * PostgreSQL only, per request: statements (pg_stat_statements), transactions committed (each
   * statement outside BEGIN is one), and those that wrote (took a transaction id).
   */
  statements?: number;
  commits?: number;
  writeTransactions?: number;
  walBytes?: number;
  /** Statement texts, their calls per request and their execution µs per call, most called first. */
  topStatements?: [string, number, number][];
  /**
   * Execution time of all statements per request, µs: wall time, so a statement waiting for a lock
   * counts its wait.
   */
  execUs?: number;
  /** Samples of the other backends' states and wait events, by what they were doing. */
  activity?: Record<string, number>;
}

export interface MeasureOptions {
  adapter: string;
  databaseUrl: string;
  key: string;
  probe?: PostgresProbe;
  workers: number;
  round: number;
  paths: string[];
  port: number;
  seconds: number;
  warmup: number;
  connections: number;
  serverCores: string | undefined;
  loadCores: string;
  loadThreads: number;
  synchronous: Synchronous;
}

/**
 * The control: bare Bun.serve processes sharing the port, answering a fixed body. What their CPU per
 * request does from 1 to N processes is what the machine does to any server split over processes.
 */
export const BARE = "bare Bun.serve";

async function startBare(options: ApiOptions): Promise<Bun.Subprocess> {
  const argv = [process.execPath, join(import.meta.dir, "bare-server.ts"), String(options.port), "600"];
  argv.push(String(options.workers ?? 1));
  const child = Bun.spawn(options.cores === undefined ? argv : ["taskset", "-c", options.cores, ...argv], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  await waitFor(`http://127.0.0.1:${options.port}/`);
  // Every process listens before the load: each has its own socket on the port.
  while (processTree(child.pid).length < (options.workers ?? 1)) await Bun.sleep(100);
  await Bun.sleep(500);
  return child;
}

/** How long the server's backends may take to exit once the API has closed its connections. */
const BACKENDS_EXIT_MS = 10_000;
/** The longest wait for the API processes to go idle after the warm-up. */
const SETTLE_MS = 3_000;

/**
 * Waits until the API processes spend no CPU for 100 ms (at most SETTLE_MS): what the warm-up left in
 * flight, such as the refunds of answers its closed connections never read, is done before the measured
 * load starts, and neither its CPU nor its locks count against it.
 */
async function settled(pid: number): Promise<void> {
  const deadline = performance.now() + SETTLE_MS;
  let before = cpuSeconds(pid);
  while (performance.now() < deadline) {
    await Bun.sleep(100);
    const after = cpuSeconds(pid);
    if (after === before) return;
    before = after;
  }
}

export async function measureWorkers(options: MeasureOptions): Promise<Figures> {
  const { probe } = options;
  const commitsBefore = await probe?.commits();
  const api = await (options.adapter === BARE ? startBare : startApi)({
    port: options.port,
    databaseUrl: options.databaseUrl,
    workers: options.workers,
    synchronous: options.synchronous,
    ...(options.serverCores === undefined ? {} : { cores: options.serverCores }),
  });
  const urls = options.paths.map((path) => `http://127.0.0.1:${options.port}${path}`);
  const loadOptions = {
    connections: options.connections,
    key: options.key,
    cores: options.loadCores,
    threads: options.loadThreads,
  };
  const warm = await load(urls, { ...loadOptions, seconds: options.warmup });
  await settled(api.pid);
  const apiCpu = cpuSeconds(api.pid);
  const reads = readCalls(api.pid);
  const server = await probe?.counters();
  const sampler = probe?.sampleActivity();
  const result = await load(urls, { ...loadOptions, seconds: options.seconds });
  const apiCpuAfter = cpuSeconds(api.pid);
  const readsAfter = readCalls(api.pid);
  const activity = await sampler?.stop();
  const serverAfter = await probe?.counters();
  await stopApi(api);
  const perRequest = (value: number) => value / result.requests;
  const figures: Figures = {
    adapter: options.adapter,
    workers: options.workers,
    round: options.round,
    rps: result.rps,
    p99: result.p99,
    failures: result.failures + warm.failures,
    apiCpuUs: perRequest(apiCpuAfter - apiCpu) * 1e6,
    databaseCpuUs: undefined,
    readsPerRequest: perRequest(readsAfter - reads),
  };
  if (probe && server && serverAfter && commitsBefore !== undefined) {
    const cost = PostgresProbe.cost(server, serverAfter);
    await probe.waitForNoOtherBackends(BACKENDS_EXIT_MS);
    // pg_stat_database counts the warm-up's commits too: they are divided by both loads' requests.
    const commits = (await probe.commits()) - commitsBefore;
    Object.assign(figures, {
      databaseCpuUs: cost.cpuSeconds === undefined ? undefined : perRequest(cost.cpuSeconds) * 1e6,
      statements: cost.statements
        ? perRequest(cost.statements.reduce((sum, [, use]) => sum + use.calls, 0))
        : undefined,
      execUs: cost.statements
        ? perRequest(cost.statements.reduce((sum, [, use]) => sum + use.execMs, 0)) * 1e3
        : undefined,
      commits: commits / (result.requests + warm.requests),
      writeTransactions: perRequest(cost.writeTransactions),
      walBytes: perRequest(cost.walBytes),
      topStatements: cost.statements
        ?.slice(0, 8)
        .map(([query, use]) => [query, perRequest(use.calls), (use.execMs * 1e3) / use.calls]),
      activity: Object.fromEntries(activity ?? []),
    });
  }
  return figures;
}

const middle = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** `median (min-max)` of a figure over rounds. */
function spread(values: number[], digits = 0): string {
  if (values.length === 0) return "";
  const fixed = (value: number) => value.toFixed(digits);
  return `${fixed(middle(values))} (${fixed(Math.min(...values))}-${fixed(Math.max(...values))})`;
}

export function printTable(figures: Figures[], workerCounts: number[]): void {
  const columns = ["adapter", "workers", "req/s", "p99 ms", "API µs/req", "DB µs/req", "total µs/req", "ratio"];
  columns.push("reads/req", "stmts/req", "exec µs/req", "xacts/req", "writes/req", "WAL B/req", "failures");
  const rows: string[][] = [columns];
  const adapters = [...new Set(figures.map((figure) => figure.adapter))];
  for (const adapter of adapters) {
    const total = (figure: Figures) => figure.apiCpuUs + (figure.databaseCpuUs ?? 0);
    const of = (workers: number) => figures.filter((f) => f.adapter === adapter && f.workers === workers);
    const baseline = middle(of(workerCounts[0] as number).map(total));
    for (const workers of workerCounts) {
      const runs = of(workers);
      const pick = (field: (figure: Figures) => number | undefined, digits = 0) => {
        const values = runs.map(field).filter((value): value is number => value !== undefined);
        return spread(values, digits);
      };
      rows.push([
        adapter,
        String(workers),
        pick((f) => f.rps),
        pick((f) => f.p99, 1),
        pick((f) => f.apiCpuUs),
        pick((f) => f.databaseCpuUs),
        pick(total),
        (middle(runs.map(total)) / baseline).toFixed(2),
        pick((f) => f.readsPerRequest, 2),
        pick((f) => f.statements, 2),
        pick((f) => f.execUs),
        pick((f) => f.commits, 2),
        pick((f) => f.writeTransactions, 2),
        pick((f) => f.walBytes),
        String(runs.reduce((sum, f) => sum + f.failures, 0)),
      ]);
    }
  }
  const widths = columns.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? "").length)));
  for (const row of rows) console.log(row.map((cell, i) => cell.padEnd(widths[i] as number)).join("  "));
  for (const figure of figures.filter((f) => f.activity && f.round === 1)) {
    const samples = Object.values(figure.activity ?? {}).reduce((sum, count) => sum + count, 0);
    const top = Object.entries(figure.activity ?? {})
      .sort((a, b) => b[1] - a[1])
      .slice(0, 6)
      .map(([what, count]) => `${what} ${((count / samples) * 100).toFixed(0)}%`);
    console.log(`\n${figure.adapter}, ${figure.workers} worker(s), round 1: backends ${top.join(", ")}`);
    for (const [query, calls, us] of figure.topStatements ?? []) {
      console.log(`  ${calls.toFixed(2)}/req ${us.toFixed(0).padStart(5)} µs  ${query.slice(0, 100)}`);
    }
  }
}
