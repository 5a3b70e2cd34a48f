// `bun run --cwd apps/api bench:workers`: charged lookups (`GET /v1/tweets/{id}` on the large world) served
// by N worker processes (WEB_CONCURRENCY) on each adapter, and what each request cost: CPU of the API
// processes and of the database server, reads, and on PostgreSQL statements, commits, WAL and what its
// backends waited on. On a machine with fewer cores than workers throughput cannot grow with N; the CPU
// per request should stay flat. Rounds are interleaved (every N once per round) and medians printed with
// their spread. `--help` lists the options.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { synchronousFrom } from "@social/composition";
import { pinned } from "./generator.ts";
import { PostgresProbe } from "./postgres-probe.ts";
import { pinTree } from "./proc.ts";
import { BARE, type Figures, measureWorkers, printTable } from "./workers-measure.ts";
import { benchFolder, benchKey, postgresWorld, removeSqliteCopy, sqliteCopy } from "./worlds.ts";

const USAGE = `bun bench/workers.ts [options]
  --workers 1,2            worker counts to measure (WEB_CONCURRENCY)
  --adapters bare,sqlite,postgres   bare: Bun.serve processes answering a fixed body, the control
  --seconds 5              load per figure, after --warmup seconds of load on a fresh server
  --warmup 2
  --rounds 3               rounds, interleaved; medians and spread (min-max) are printed
  --connections 64         wrk connections, whatever the worker count
  --connections-per-worker N   instead, N wrk connections per worker: each worker as loaded as one alone
                           (CPU per request rises as a process's load falls, as its fixed costs per
                           event-loop turn and per group commit are shared by fewer requests)
  --server-cores LIST      taskset list for the API processes (all cores when absent)
  --database-cores LIST    taskset list for PostgreSQL when it runs on this machine (all when absent)
  --load-cores LIST        taskset list for wrk (default 1; all cores when given as "all")
  --load-threads 1         wrk threads
  --postgres-url URL       measure an already running PostgreSQL (the large world is built there when
                           missing, and a bench account charged); otherwise a cluster of the bench's own
  --database PATH          the SQLite world (default data/bench/large.db)
  --synchronous FULL       SQLITE_SYNCHRONOUS for the SQLite workers (FULL or NORMAL)
  --json PATH              also write every round's figures as JSON`;

const { values } = parseArgs({
  options: {
    workers: { type: "string", default: "1,2" },
    adapters: { type: "string", default: "bare,sqlite,postgres" },
    seconds: { type: "string", default: "5" },
    warmup: { type: "string", default: "2" },
    rounds: { type: "string", default: "3" },
    connections: { type: "string", default: "64" },
    "connections-per-worker": { type: "string" },
    "server-cores": { type: "string" },
    "database-cores": { type: "string" },
    "load-cores": { type: "string", default: "1" },
    "load-threads": { type: "string", default: "1" },
    "postgres-url": { type: "string" },
    database: { type: "string", default: join(benchFolder, "large.db") },
    synchronous: { type: "string", default: "FULL" },
    json: { type: "string" },
    help: { type: "boolean", default: false },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (!pinned) throw new Error("the workers scenario needs wrk and taskset (npm run bench installs wrk)");
const workerCounts = (values.workers as string).split(",").map(Number);
const adapters = (values.adapters as string).split(",");
const rounds = Number(values.rounds);
const perWorker = values["connections-per-worker"] === undefined ? undefined : Number(values["connections-per-worker"]);
const allCores = `0-${navigator.hardwareConcurrency - 1}`;
const settings = {
  seconds: Number(values.seconds),
  warmup: Number(values.warmup),
  connections: Number(values.connections),
  serverCores: values["server-cores"],
  loadCores: values["load-cores"] === "all" ? allCores : (values["load-cores"] as string),
  loadThreads: Number(values["load-threads"]),
  synchronous: synchronousFrom(values.synchronous),
  port: 4100 + Math.floor(Math.random() * 100),
};

// Public posts of active authors (the same ids in both adapters' copies of the world): every lookup is a
// charged 200, none a 404 for a hidden post.
const sqlitePath = sqliteCopy(values.database as string, "workers.db");
const { Database } = await import("bun:sqlite");
const reader = new Database(sqlitePath, { readonly: true });
const tweetIds = (
  reader
    .query(
      "SELECT t.id FROM tweets t JOIN users u ON u.id = t.author_id WHERE t.author_protected = 0 AND u.status = 'active' ORDER BY random() LIMIT 500",
    )
    .all() as { id: number }[]
).map((row) => String(row.id));
reader.close();
const paths = tweetIds.map((id) => `/v1/tweets/${id}`);

interface Target {
  adapter: string;
  databaseUrl: string;
  key: string;
  probe?: PostgresProbe;
}
const targets: Target[] = [];
let closePostgres = async () => {};
if (adapters.includes("bare")) targets.push({ adapter: BARE, databaseUrl: "", key: "" });
if (adapters.includes("sqlite")) {
  targets.push({ adapter: "sqlite", databaseUrl: sqlitePath, key: await benchKey(sqlitePath, "bench-workers") });
}
if (adapters.includes("postgres")) {
  const world = await postgresWorld({
    copyName: "workers",
    ...(values["postgres-url"] ? { url: values["postgres-url"] } : {}),
  });
  closePostgres = world.close;
  const probe = await PostgresProbe.open(world.url);
  if (!probe.hasStatements)
    console.log("PostgreSQL: pg_stat_statements is not loaded; statements per request left out");
  if (probe.serverPid === undefined) console.log("PostgreSQL: its processes are not visible here; its CPU left out");
  if (values["database-cores"] && probe.serverPid !== undefined) pinTree(probe.serverPid, values["database-cores"]);
  targets.push({ adapter: "postgres", databaseUrl: world.url, key: await benchKey(world.url, "bench-workers"), probe });
}

const figures: Figures[] = [];
for (let round = 1; round <= rounds; round++) {
  for (const target of targets) {
    for (const workers of workerCounts) {
      console.log(`round ${round} of ${rounds}: ${target.adapter}, ${workers} worker(s)…`);
      const connections = perWorker === undefined ? settings.connections : perWorker * workers;
      figures.push(await measureWorkers({ ...settings, ...target, workers, round, paths, connections }));
    }
  }
}
for (const target of targets) await target.probe?.close();
await closePostgres();
removeSqliteCopy(sqlitePath);

const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
console.log(
  `\n${navigator.hardwareConcurrency} cores; API on ${settings.serverCores ?? "all cores"}, database on ${values["database-cores"] ?? "all cores"}, wrk -t${settings.loadThreads} -c${perWorker === undefined ? settings.connections : `${perWorker} per worker`} on ${settings.loadCores}; ${settings.seconds} s per figure after ${settings.warmup} s warm-up, median (min-max) of ${rounds} rounds; load average ${load}`,
);
printTable(figures, workerCounts);
if (values.json) writeFileSync(values.json, JSON.stringify({ settings, load, figures }, null, 1));
