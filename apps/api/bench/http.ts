// `bun run bench`: the HTTP API under load on loopback, against a bare Bun.serve answering a fixed body
// of the same size in the same run, and the search mix in-process against the store, so every figure
// is read as a ratio to a baseline measured on the same (shared, noisy) machine at the same time. The
// floor server (floor-server.ts) does only the charged work itself, so each API figure is also read as
// a share of what any implementation on this stack reaches here.
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { openBackend } from "@social/backend";
import { parseQuery } from "@social/core";
import { LARGE_WORLD } from "@social/fixtures";
import { startPostgres } from "@social/store-postgres/testing";
import { buildWorld, createAccount, createKey, hasWorld, openDatabase, SqliteStore } from "@social/store-sqlite";
import { SERVER_RUNTIME_FLAGS } from "../src/server.ts";

const root = resolve(import.meta.dir, "../../..");
const { values } = parseArgs({
  options: {
    database: { type: "string", default: join(root, "data/bench/large.db") },
    seconds: { type: "string", default: "8" },
    connections: { type: "string", default: "64" },
  },
});
const seconds = Number(values.seconds);
const connections = values.connections as string;
const databasePath = values.database as string;

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}

// 1. The large world, built once and kept for later runs.
mkdirSync(join(databasePath, ".."), { recursive: true });
const db = openDatabase(databasePath);
if (!hasWorld(db)) {
  const started = performance.now();
  buildWorld(db, LARGE_WORLD);
  db.run("PRAGMA wal_checkpoint(TRUNCATE)");
  console.log(`built the large world in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
console.log(`database ${databasePath}: ${mb(statSync(databasePath).size)}`);
const account = createAccount(db, "bench", 1_000_000_000);
const { key } = createKey(db, account.id, "bench");

const tweetIds = (db.query("SELECT id FROM tweets ORDER BY random() LIMIT 500").all() as { id: number }[]).map((r) =>
  String(r.id),
);
const bigAccount = db
  .query("SELECT followee_id AS id FROM follows GROUP BY followee_id ORDER BY COUNT(*) DESC LIMIT 1")
  .get() as { id: number };
const searchQueries = (db.query("SELECT query FROM trends ORDER BY rank LIMIT 12").all() as { query: string }[]).map(
  (r) => r.query,
);

// 2. In-process baseline for the search mix: the store alone, one query after another.
const store = new SqliteStore(db);
const asts = searchQueries.map((q) => parseQuery(q));
let inProcess = 0;
const inProcessDeadline = performance.now() + seconds * 1000;
const inProcessStart = performance.now();
while (performance.now() < inProcessDeadline) {
  await store.searchTweets(asts[inProcess % asts.length] as ReturnType<typeof parseQuery>, "recency", { size: 20 });
  inProcess++;
}
const inProcessQps = inProcess / ((performance.now() - inProcessStart) / 1000);

// 3. The servers, each in its own process.
async function waitFor(url: string) {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {}
    await Bun.sleep(100);
  }
  throw new Error(`${url} did not come up`);
}

const apiPort = 3900 + Math.floor(Math.random() * 50);
const barePort = apiPort + 50;
const floorPort = apiPort + 100;
const apiUrl = `http://127.0.0.1:${apiPort}`;

/** The API on apiPort; with `workers` > 1 under the supervisor, once every worker serves (its banner). */
async function startApi(databaseUrl: string, options: { synchronous?: "NORMAL" | "FULL"; workers?: number } = {}) {
  const said = join(root, "data/bench/api.err");
  const child = Bun.spawn([process.execPath, ...SERVER_RUNTIME_FLAGS, join(root, "apps/api/src/main.ts")], {
    env: {
      ...process.env,
      PORT: String(apiPort),
      HOST: "127.0.0.1",
      DATABASE_URL: databaseUrl,
      RATE_LIMIT_RPS: "0",
      SQLITE_SYNCHRONOUS: options.synchronous ?? "FULL",
      WEB_CONCURRENCY: String(options.workers ?? 1),
    },
    stdout: "ignore",
    stderr: Bun.file(said),
  });
  await waitFor(`${apiUrl}/openapi.json`);
  while (!(await Bun.file(said).text()).includes("listening on")) await Bun.sleep(100);
  return child;
}

let api = await startApi(databasePath);
const sample = await (
  await fetch(`${apiUrl}/v1/tweets/${tweetIds[0]}`, { headers: { authorization: `Bearer ${key}` } })
).text();
const bare = Bun.spawn(
  [process.execPath, join(import.meta.dir, "bare-server.ts"), String(barePort), String(sample.length)],
  {
    stdout: "ignore",
    stderr: "inherit",
  },
);
await waitFor(`http://127.0.0.1:${barePort}/`);
const floor = Bun.spawn([process.execPath, join(import.meta.dir, "floor-server.ts"), String(floorPort), databasePath], {
  stdout: "ignore",
  stderr: "inherit",
});
await waitFor(`http://127.0.0.1:${floorPort}/v1/tweets/${tweetIds[0]}`);

interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  failures: number;
}

async function load(urls: string[], withKey: string | false): Promise<LoadResult> {
  const args = [
    process.execPath,
    join(import.meta.dir, "load.ts"),
    "--seconds",
    String(seconds),
    "--connections",
    connections,
  ];
  if (withKey) args.push("--key", withKey);
  for (const url of urls) args.push("--url", url);
  const child = Bun.spawn(args, { stdout: "pipe", stderr: "inherit" });
  const text = await new Response(child.stdout).text();
  await child.exited;
  return JSON.parse(text) as LoadResult;
}

/** CPU seconds (user + system) the server has used: the process, and with workers, each of them. */
function serverCpuSeconds(pid: number): number {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
  const pids = [pid, ...(children === "" ? [] : children.split(" ").map(Number))];
  // Fields 14 and 15 of /proc/PID/stat, in clock ticks (100 per second on Linux), after the "(name)".
  const ticks = pids.map((one) => {
    const fields = readFileSync(`/proc/${one}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return Number(fields[11]) + Number(fields[12]);
  });
  return ticks.reduce((sum, tick) => sum + tick, 0) / 100;
}

/**
 * A load, and the server CPU each answer cost: with the load generator on the same cores, req/s alone
 * hides what a second worker adds; CPU per request says what each core more would serve.
 */
async function loadCounted(urls: string[], withKey: string): Promise<LoadResult & { cpuUs: number }> {
  const before = serverCpuSeconds(api.pid);
  const result = await load(urls, withKey);
  return { ...result, cpuUs: ((serverCpuSeconds(api.pid) - before) / result.requests) * 1e6 };
}

function vmRss(pid: number): number {
  const text = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(text.match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) * 1024;
}

const lookupUrls = (base: string) => tweetIds.map((id) => `${base}/v1/tweets/${id}`);
const searchUrls = (base: string) =>
  searchQueries.map((q) => `${base}/v1/search/recent?query=${encodeURIComponent(q)}`);
const floorUrl = `http://127.0.0.1:${floorPort}`;

// The API's RSS, sampled through every scenario it serves: the peak is what capacity must allow for.
let peakRss = 0;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, vmRss(api.pid));
}, 100);

const baseline = await load([`http://127.0.0.1:${barePort}/`], false);
const floorLookups = await load(lookupUrls(floorUrl), key);
const lookups = await loadCounted(lookupUrls(apiUrl), key);
const floorSearches = await load(searchUrls(floorUrl), key);
const searches = await load(searchUrls(apiUrl), key);
const followers = await load([`${apiUrl}/v1/users/${bigAccount.id}/followers?mode=ids&limit=5000`], key);
clearInterval(sampler);
const rss = vmRss(api.pid);
// Then idle for a few seconds, which lets the garbage collector give memory back.
await Bun.sleep(5000);
const settledRss = vmRss(api.pid);
api.kill("SIGTERM");
await api.exited;

// The same lookups without an fsync per commit (SQLITE_SYNCHRONOUS=NORMAL): what power-loss durability costs.
api = await startApi(databasePath, { synchronous: "NORMAL" });
const lookupsNormal = await load(lookupUrls(apiUrl), key);
api.kill("SIGTERM");
await api.exited;

// The same lookups from two worker processes on the port (WEB_CONCURRENCY=2). The load generator runs
// on the same two cores, so this measures what a second worker adds here, not how workers scale.
api = await startApi(databasePath, { workers: 2 });
const lookupsTwoWorkers = await loadCounted(lookupUrls(apiUrl), key);
api.kill("SIGTERM");
await api.exited;

// The same lookups on PostgreSQL (fsync and synchronous_commit on), one API process, the same large world
// in a cluster kept in data/bench/postgres (built on the first run, as the SQLite file is).
const postgres = await startPostgres({ durable: true, keepIn: join(root, "data/bench/postgres") });
const postgresUrl = await postgres.createDatabase("large", { reuse: true });
const backend = await openBackend(postgresUrl);
if (!(await backend.hasWorld())) {
  const started = performance.now();
  await backend.buildWorld(LARGE_WORLD);
  console.log(`built the large world into PostgreSQL in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
const postgresKey = (await backend.accounts.openAccount("bench", 1_000_000_000)).key.key;
await backend.close();
api = await startApi(postgresUrl);
const lookupsPostgres = await loadCounted(lookupUrls(apiUrl), postgresKey);
api.kill("SIGTERM");
await api.exited;
api = await startApi(postgresUrl, { workers: 2 });
const lookupsPostgresTwoWorkers = await loadCounted(lookupUrls(apiUrl), postgresKey);
for (const child of [api, bare, floor]) child.kill("SIGTERM");
await Promise.all([api.exited, bare.exited, floor.exited]);
postgres.stop();
db.close();

const row = (name: string, r: LoadResult, ratio: string) =>
  `${name.padEnd(38)} ${r.rps.toFixed(0).padStart(8)} ${r.p50.toFixed(2).padStart(8)} ${r.p99.toFixed(2).padStart(8)} ${String(r.failures).padStart(6)}  ${ratio}`;
console.log(
  `\n${connections} connections, ${seconds} s per scenario, load generator on the same host (${navigator.hardwareConcurrency} cores)`,
);
console.log(
  `${"scenario".padEnd(38)} ${"req/s".padStart(8)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)} ${"non2xx".padStart(6)}  ratio`,
);
const share = (r: LoadResult, base: number) => (r.rps / base).toFixed(2);
console.log(row("bare Bun.serve, fixed body", baseline, "1.00 (baseline)"));
console.log(row("floor: charged lookup, nothing else", floorLookups, `${share(floorLookups, baseline.rps)} of bare`));
console.log(
  row(
    "GET /v1/tweets/{id} (charged)",
    lookups,
    `${share(lookups, baseline.rps)} of bare (target >= 0.40), ${share(lookups, floorLookups.rps)} of floor`,
  ),
);
console.log(row("  same, SQLITE_SYNCHRONOUS=NORMAL", lookupsNormal, `${share(lookupsNormal, baseline.rps)} of bare`));
console.log(
  row(
    "  same, 2 workers (WEB_CONCURRENCY=2)",
    lookupsTwoWorkers,
    `${share(lookupsTwoWorkers, lookups.rps)} of 1 worker; server CPU ${lookupsTwoWorkers.cpuUs.toFixed(0)} µs/request (1 worker: ${lookups.cpuUs.toFixed(0)})`,
  ),
);
console.log(
  row(
    "  same, on PostgreSQL",
    lookupsPostgres,
    `${share(lookupsPostgres, lookups.rps)} of SQLite's (target >= 0.5), ${share(lookupsPostgres, baseline.rps)} of bare`,
  ),
);
console.log(
  row(
    "  same, on PostgreSQL, 2 workers",
    lookupsPostgresTwoWorkers,
    `${share(lookupsPostgresTwoWorkers, lookupsPostgres.rps)} of 1 worker on PostgreSQL; server CPU ${lookupsPostgresTwoWorkers.cpuUs.toFixed(0)} µs/request (1 worker: ${lookupsPostgres.cpuUs.toFixed(0)})`,
  ),
);
console.log(
  row("floor: charged search, nothing else", floorSearches, `${share(floorSearches, inProcessQps)} of in-process`),
);
console.log(
  row(
    "GET /v1/search/recent, 20 tweets",
    searches,
    `${share(searches, inProcessQps)} of in-process store (target >= 0.70), ${share(searches, floorSearches.rps)} of floor`,
  ),
);
console.log(
  row("GET followers?mode=ids&limit=5000", followers, `${(followers.rps / baseline.rps).toFixed(2)} of bare`),
);
console.log(
  `in-process search mix: ${inProcessQps.toFixed(0)} queries/s; server RSS (target < 200 MB): peak ${mb(peakRss)}, at the end of the load ${mb(rss)}, 5 s later ${mb(settledRss)}`,
);
