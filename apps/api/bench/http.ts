// `bun run bench`: the HTTP API under load on loopback on the 1,000,000-tweet world. Every figure is a
// ratio to a baseline measured in the same run: bare Bun.serve answering a fixed body of the same size,
// the floor server (floor-server.ts: only the charged work, on this stack), and for search the store
// called in-process on the same core. Pinned when it can be (generator.ts): server on core 0, wrk on
// core 1. Each scenario runs `--rounds` times, the rounds interleaved, and its median is printed.
import { statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { parseQuery } from "@social/core";
import { createAccount, createKey, openDatabase, SqliteStore } from "@social/store-sqlite";
import { EXPENSIVE_SEARCHES } from "../test/reliability/expensive-searches.ts";
import { startApi as startApiProcess, stopApi, waitFor } from "./api-process.ts";
import { type LoadResult, load, median, onServerCore, onServerCoreHere, pinned, SERVER_CORE } from "./generator.ts";
import { cpuSeconds, readCalls, rssBytes } from "./proc.ts";
import { benchFolder, benchKey, postgresWorld, removeSqliteCopy, sqliteCopy } from "./worlds.ts";

const { values } = parseArgs({
  options: {
    database: { type: "string", default: join(benchFolder, "large.db") },
    seconds: { type: "string", default: "8" },
    rounds: { type: "string", default: "3" },
    "wal-seconds": { type: "string", default: "60" },
    connections: { type: "string", default: "64" },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const worldPath = values.database as string;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

// 1. The large world, built once and kept for later runs; each run serves a copy of it (worlds.ts).
const databasePath = sqliteCopy(worldPath, "run.db");
const db = openDatabase(databasePath);
const account = createAccount(db, "bench", 1_000_000_000);
const { key } = createKey(db, account.id, "bench");
// Another customer, who floods the most expensive searches while `key` looks tweets up.
const flooder = createAccount(db, "flooder", 1_000_000_000);
const floodKey = createKey(db, flooder.id, "flood").key;
// Public posts of active authors: every lookup is a charged 200, none a 404 for a hidden post.
const tweetIds = (
  db
    .query(
      "SELECT t.id FROM tweets t JOIN users u ON u.id = t.author_id WHERE t.author_protected = 0 AND u.status = 'active' ORDER BY random() LIMIT 500",
    )
    .all() as { id: number }[]
).map((r) => String(r.id));
const bigAccount = db
  .query("SELECT followee_id AS id FROM follows GROUP BY followee_id ORDER BY COUNT(*) DESC LIMIT 1")
  .get() as { id: number };
const searchQueries = (db.query("SELECT query FROM trends ORDER BY rank LIMIT 12").all() as { query: string }[]).map(
  (r) => r.query,
);
const store = new SqliteStore(db);
const searchAsts = searchQueries.map((query) => parseQuery(query));

/** The search mix called on the store, one query after another, on the server's core: queries/s. */
function inProcessSearches(): Promise<number> {
  return onServerCoreHere(async () => {
    let done = 0;
    const started = performance.now();
    while (performance.now() - started < seconds * 1000) {
      await store.searchTweets(searchAsts[done % searchAsts.length] as ReturnType<typeof parseQuery>, "recency", {
        size: 20,
      });
      done++;
    }
    return done / ((performance.now() - started) / 1000);
  });
}

// 2. The servers, each in its own process.
const apiPort = 3900 + Math.floor(Math.random() * 50);
const barePort = apiPort + 50;
const floorPort = apiPort + 100;
const apiUrl = `http://127.0.0.1:${apiPort}`;
const floorUrl = `http://127.0.0.1:${floorPort}`;

/** The API on apiPort; pinned to the server's core with one worker, unpinned with more. */
function startApi(databaseUrl: string, options: { synchronous?: "NORMAL" | "FULL"; workers?: number } = {}) {
  const cores = pinned && (options.workers ?? 1) === 1 ? { cores: SERVER_CORE } : {};
  return startApiProcess({ port: apiPort, databaseUrl, ...options, ...cores });
}

const sample = await (async () => {
  const api = await startApi(databasePath);
  const text = await (
    await fetch(`${apiUrl}/v1/tweets/${tweetIds[0]}`, { headers: { authorization: `Bearer ${key}` } })
  ).text();
  await stopApi(api);
  return text;
})();
const bare = Bun.spawn(
  onServerCore([process.execPath, join(import.meta.dir, "bare-server.ts"), String(barePort), String(sample.length)]),
  { stdout: "ignore", stderr: "inherit" },
);
await waitFor(`http://127.0.0.1:${barePort}/`);

/**
 * The floor server, up only for its own scenarios: between them its checkpointer thread would share
 * the server's core and checkpoint the API's writes.
 */
async function withFloor<T>(measure: () => Promise<T>): Promise<T> {
  const floor = Bun.spawn(
    onServerCore([process.execPath, join(import.meta.dir, "floor-server.ts"), String(floorPort), databasePath]),
    { stdout: "ignore", stderr: "inherit" },
  );
  try {
    await waitFor(`${floorUrl}/v1/tweets/${tweetIds[0]}`);
    return await measure();
  } finally {
    floor.kill("SIGTERM");
    await floor.exited;
  }
}

// 3. What each scenario cost the server, read from /proc around the load (proc.ts).
const walPath = `${databasePath}-wal`;
const walSize = () => statSync(walPath, { throwIfNoEntry: false })?.size ?? 0;

interface Measured extends LoadResult {
  cpuUs: number;
  readsPerRequest: number;
  /** The largest -wal file seen during the load (sampled every 50 ms). */
  walPeak: number;
  /** The server's largest RSS during the load (sampled every 50 ms), its processes together. */
  rssPeak: number;
}

let api: Bun.Subprocess | undefined;

async function measured(urls: string[], withKey: string, options: { seconds?: number } = {}): Promise<Measured> {
  const pid = (api as Bun.Subprocess).pid;
  const cpu = cpuSeconds(pid);
  const reads = readCalls(pid);
  let walPeak = walSize();
  let rssPeak = rssBytes(pid);
  const sampler = setInterval(() => {
    walPeak = Math.max(walPeak, walSize());
    rssPeak = Math.max(rssPeak, rssBytes(pid));
  }, 50);
  const result = await load(urls, { seconds: options.seconds ?? seconds, connections, key: withKey });
  clearInterval(sampler);
  return {
    ...result,
    cpuUs: ((cpuSeconds(pid) - cpu) / result.requests) * 1e6,
    readsPerRequest: (readCalls(pid) - reads) / result.requests,
    walPeak,
    rssPeak,
  };
}

function medianMeasured(results: Measured[]): Measured {
  const middle = (field: "cpuUs" | "readsPerRequest") =>
    results.map((result) => result[field]).sort((a, b) => a - b)[Math.floor(results.length / 2)] as number;
  return {
    ...median(results),
    cpuUs: middle("cpuUs"),
    readsPerRequest: middle("readsPerRequest"),
    walPeak: Math.max(...results.map((result) => result.walPeak)),
    rssPeak: Math.max(...results.map((result) => result.rssPeak)),
  };
}

const lookupUrls = (base: string) => tweetIds.map((id) => `${base}/v1/tweets/${id}`);
const searchUrls = (base: string) =>
  searchQueries.map((q) => `${base}/v1/search/recent?query=${encodeURIComponent(q)}`);
const floodUrls = EXPENSIVE_SEARCHES.flatMap((q) =>
  ["recency", "relevancy"].map(
    (order) => `${apiUrl}/v1/search/recent?query=${encodeURIComponent(q)}&sort_order=${order}`,
  ),
);
/** Lookups measured while another key floods expensive searches from 32 connections of their own. */
async function floodedLookups(): Promise<Measured> {
  const flood = load(floodUrls, { seconds, connections: 32, key: floodKey });
  const measuredLookups = await measured(lookupUrls(apiUrl), key);
  await flood;
  return measuredLookups;
}
const followerUrls = [`${apiUrl}/v1/users/${bigAccount.id}/followers?mode=ids&limit=5000`];
const byLoad = (urls: string[], withKey: string | undefined) =>
  load(urls, { seconds, connections, ...(withKey ? { key: withKey } : {}) });

// 4. The scenarios on SQLite, rounds interleaved: each round measures every baseline beside its figure.
const runs = {
  bare: [] as LoadResult[],
  floorLookups: [] as LoadResult[],
  floorSearches: [] as LoadResult[],
  lookups: [] as Measured[],
  lookupsNormal: [] as Measured[],
  lookupsFlooded: [] as Measured[],
  searches: [] as Measured[],
  followers: [] as Measured[],
  inProcess: [] as number[],
};
for (let round = 1; round <= rounds; round++) {
  console.log(`round ${round} of ${rounds}…`);
  runs.bare.push(await byLoad([`http://127.0.0.1:${barePort}/`], undefined));
  await withFloor(async () => {
    runs.floorLookups.push(await byLoad(lookupUrls(floorUrl), key));
    runs.floorSearches.push(await byLoad(searchUrls(floorUrl), key));
  });
  api = await startApi(databasePath);
  runs.lookups.push(await measured(lookupUrls(apiUrl), key));
  runs.lookupsFlooded.push(await floodedLookups());
  runs.searches.push(await measured(searchUrls(apiUrl), key));
  runs.followers.push(await measured(followerUrls, key));
  await stopApi(api);
  api = await startApi(databasePath, { synchronous: "NORMAL" });
  runs.lookupsNormal.push(await measured(lookupUrls(apiUrl), key));
  await stopApi(api);
  runs.inProcess.push(await inProcessSearches());
}

// A long lookup load, FULL then NORMAL: the WAL must stay bounded without a checkpoint in any request.
const walSeconds = Number(values["wal-seconds"]);
api = await startApi(databasePath);
const longFull = await measured(lookupUrls(apiUrl), key, { seconds: walSeconds });
await stopApi(api);
api = await startApi(databasePath, { synchronous: "NORMAL" });
const longNormal = await measured(lookupUrls(apiUrl), key, { seconds: walSeconds });
const rss = rssBytes(api.pid);
await Bun.sleep(5000); // idle, which lets the garbage collector give memory back
const settledRss = rssBytes(api.pid);
await stopApi(api);

// Two worker processes on the port (WEB_CONCURRENCY=2), unpinned: they share the cores with wrk.
api = await startApi(databasePath, { workers: 2 });
const lookupsTwoWorkers = await measured(lookupUrls(apiUrl), key);
await stopApi(api);

// 5. The same lookups on PostgreSQL (fsync and synchronous_commit on), the same large world in a
// cluster kept in data/bench/postgres (built on the first run, as the SQLite file is). Each run serves
// a copy of it, as on SQLite: charged on the world itself, every run would add half a million usage
// rows to the ledger the next one writes into. The database server is not pinned: it shares wrk's core.
const postgres = await postgresWorld({ copyName: "run" });
const postgresUrl = postgres.url;
const postgresKey = await benchKey(postgresUrl, "bench");
api = await startApi(postgresUrl);
// The copy is read into the server's buffers once, as the floor server reads SQLite's before its rounds.
await load(lookupUrls(apiUrl), { seconds: 2, connections, key: postgresKey });
const lookupsPostgres: Measured[] = [];
for (let round = 1; round <= rounds; round++) lookupsPostgres.push(await measured(lookupUrls(apiUrl), postgresKey));
await stopApi(api);
api = await startApi(postgresUrl, { workers: 2 });
const lookupsPostgresTwoWorkers = await measured(lookupUrls(apiUrl), postgresKey);
await stopApi(api);
bare.kill("SIGTERM");
await bare.exited;
await postgres.close();
db.close();
removeSqliteCopy(databasePath);

// 6. The table.
const baseline = median(runs.bare);
const floorLookups = median(runs.floorLookups);
const floorSearches = median(runs.floorSearches);
const lookups = medianMeasured(runs.lookups);
const lookupsNormal = medianMeasured(runs.lookupsNormal);
const lookupsFlooded = medianMeasured(runs.lookupsFlooded);
const searches = medianMeasured(runs.searches);
const followers = medianMeasured(runs.followers);
const postgresLookups = medianMeasured(lookupsPostgres);
// One process on SQLite, every scenario: what capacity must allow for.
const peakRss = Math.max(...[lookups, lookupsNormal, searches, followers, longFull, longNormal].map((r) => r.rssPeak));
const inProcessQps = [...runs.inProcess].sort((a, b) => a - b)[Math.floor(rounds / 2)] as number;
const share = (r: LoadResult, base: number) => (r.rps / base).toFixed(2);

console.log(
  pinned
    ? `\nPinned: server on core 0, wrk -t1 -c${connections} on core 1; ${seconds} s per scenario, median of ${rounds} rounds`
    : `\nUnpinned (taskset or wrk missing): the Bun-fetch generator shares the ${navigator.hardwareConcurrency} cores with the server; ${seconds} s per scenario, median of ${rounds} rounds`,
);
console.log(
  `${"scenario".padEnd(40)} ${"req/s".padStart(8)} ${"p50 ms".padStart(7)} ${"p99 ms".padStart(7)} ${"non2xx".padStart(6)} ${"reads/req".padStart(9)} ${"RSS MB".padStart(6)}  ratio`,
);
const row = (name: string, r: LoadResult, ratio: string) => {
  const server = "readsPerRequest" in r ? (r as Measured) : undefined;
  const reads = server ? server.readsPerRequest.toFixed(2) : "";
  const rss = server ? (server.rssPeak / 1024 / 1024).toFixed(0) : "";
  console.log(
    `${name.padEnd(40)} ${r.rps.toFixed(0).padStart(8)} ${r.p50.toFixed(2).padStart(7)} ${r.p99.toFixed(2).padStart(7)} ${String(r.failures).padStart(6)} ${reads.padStart(9)} ${rss.padStart(6)}  ${ratio}`,
  );
};
row("bare Bun.serve, fixed body", baseline, "1.00 (baseline)");
row("floor: charged lookup, nothing else", floorLookups, `${share(floorLookups, baseline.rps)} of bare`);
row(
  "GET /v1/tweets/{id}, FULL (default)",
  lookups,
  `${share(lookups, baseline.rps)} of bare (target >= 0.16, p99 <= 10 ms), ${share(lookups, floorLookups.rps)} of floor`,
);
row(
  "  same, SQLITE_SYNCHRONOUS=NORMAL",
  lookupsNormal,
  `${share(lookupsNormal, baseline.rps)} of bare (target >= 0.22, p99 <= 8 ms)`,
);
row(
  "  same, another key flooding searches",
  lookupsFlooded,
  `p99 ${(lookupsFlooded.p99 / lookups.p99).toFixed(1)}× and ${share(lookupsFlooded, lookups.rps)} of the req/s without the flood`,
);
row(
  `  same, FULL, ${walSeconds} s`,
  longFull,
  `${share(longFull, baseline.rps)} of bare; WAL peak ${mb(longFull.walPeak)} (target <= 64 MB)`,
);
row(
  `  same, NORMAL, ${walSeconds} s`,
  longNormal,
  `${share(longNormal, baseline.rps)} of bare; WAL peak ${mb(longNormal.walPeak)} (target <= 64 MB)`,
);
row(
  "  same, 2 workers, unpinned (1 round)",
  lookupsTwoWorkers,
  `server CPU ${lookupsTwoWorkers.cpuUs.toFixed(0)} µs/request (1 worker: ${lookups.cpuUs.toFixed(0)})`,
);
row(
  "  same, on PostgreSQL",
  postgresLookups,
  `${share(postgresLookups, lookups.rps)} of SQLite's (target >= 0.5), ${share(postgresLookups, baseline.rps)} of bare`,
);
row(
  "  same, on PostgreSQL, 2 workers (1 round)",
  lookupsPostgresTwoWorkers,
  `server CPU ${lookupsPostgresTwoWorkers.cpuUs.toFixed(0)} µs/request (1 worker: ${postgresLookups.cpuUs.toFixed(0)})`,
);
row("floor: charged search, nothing else", floorSearches, `${share(floorSearches, inProcessQps)} of in-process`);
row(
  "GET /v1/search/recent, 20 tweets",
  searches,
  `${share(searches, inProcessQps)} of in-process store (target >= 0.60), ${share(searches, floorSearches.rps)} of floor`,
);
row("GET followers?mode=ids&limit=5000", followers, `${share(followers, baseline.rps)} of bare`);
console.log(
  `in-process search mix on the server's core: ${inProcessQps.toFixed(0)} queries/s; server RSS (target <= 200 MB): peak ${mb(peakRss)}, at the end of the load ${mb(rss)}, 5 s later ${mb(settledRss)}`,
);
