// Prints both adapters' store figures side by side from one run: how long the large (1,000,000-tweet)
// world takes to build into each, and in-process p50/p99 of searchTweets for each operator of the search
// language (first page of 20, both sort orders), a deep recency page, and follower-id pages.
//
//   bun packages/store-postgres/bench/search.ts [--database FILE] [--postgres URL] [--runs N]
//
// --database: the SQLite file of the large world, built there when missing (default data/bench/large.db).
// --postgres: a database holding the large world, or an empty one to build it into; without it the bench
// starts a PostgreSQL server of its own (as the tests do) on a cluster kept in data/bench/postgres, whose
// large world is built on the first run and kept, as the SQLite file is. Queries are drawn from the world with a fixed seed, so runs are comparable. The
// machine may be shared: repeat a run before reading much into one figure.
import { mkdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { type Cursor, parseQuery, type SearchSortOrder, type Store, tokenize } from "@social/core";
import { LARGE_WORLD } from "@social/fixtures";
import {
  buildWorld as buildSqliteWorld,
  hasWorld as hasSqliteWorld,
  openDatabase,
  SqliteStore,
} from "@social/store-sqlite";
import { openPostgres } from "../src/database.ts";
import { PostgresStore } from "../src/store/postgres-store.ts";
import { buildWorld, hasWorld } from "../src/world/build.ts";
import { type PostgresServer, QUARTER_OF_MEMORY, startPostgres } from "../testing/pg-server.ts";

const root = resolve(import.meta.dir, "../../..");
const { values } = parseArgs({
  options: {
    database: { type: "string", default: join(root, "data/bench/large.db") },
    postgres: { type: "string" },
    runs: { type: "string", default: "200" },
  },
});
const runs = Number(values.runs);
const seconds = (started: number) => `${((performance.now() - started) / 1000).toFixed(1)} s`;

// 1. The large world in both databases.
const databasePath = values.database as string;
mkdirSync(join(databasePath, ".."), { recursive: true });
const db = openDatabase(databasePath);
if (!hasSqliteWorld(db)) {
  const started = performance.now();
  buildSqliteWorld(db, LARGE_WORLD);
  db.run("PRAGMA wal_checkpoint(TRUNCATE)");
  console.log(`SQLite: built the large world in ${seconds(started)}`);
}
console.log(`SQLite: ${databasePath}, ${(statSync(databasePath).size / 1e6).toFixed(0)} MB`);

let server: PostgresServer | undefined;
let url = values.postgres;
if (url === undefined) {
  server = await startPostgres({
    durable: true,
    sharedBuffers: QUARTER_OF_MEMORY,
    hugePages: true,
    keepIn: join(root, "data/bench/postgres"),
  });
  console.log(
    `PostgreSQL: shared_buffers ${QUARTER_OF_MEMORY} ${server.hugePages ? "in huge pages" : "not in huge pages (reserving them needs root and free memory)"}`,
  );
  url = await server.createDatabase("large", { reuse: true });
}
const sql = await openPostgres(url);
if (!(await hasWorld(sql))) {
  const started = performance.now();
  await buildWorld(sql, LARGE_WORLD);
  console.log(`PostgreSQL: built the large world in ${seconds(started)}`);
}
const [{ size }] = (await sql`SELECT pg_database_size(current_database()) AS size`) as [{ size: string }];
console.log(`PostgreSQL: ${(Number(size) / 1e6).toFixed(0)} MB`);

// Both worlds are read into memory first, as a server that has been running holds them: SQLite's file
// into the kernel's page cache, PostgreSQL's tweets and their indexes into its shared_buffers (pg_prewarm,
// which needs the right to create the extension: the bench's own cluster gives it).
const reader = Bun.file(databasePath).stream().getReader();
while (!(await reader.read()).done);
try {
  await sql`CREATE EXTENSION IF NOT EXISTS pg_prewarm`;
  await sql`SELECT pg_prewarm(c.oid) FROM pg_class c
    WHERE c.oid = 'tweets'::regclass OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = 'tweets'::regclass)`;
} catch (error) {
  console.log(`PostgreSQL: not prewarmed (${(error as Error).message}); its first searches read from disk`);
}

const stores: [string, Store][] = [
  ["SQLite", new SqliteStore(db)],
  ["PostgreSQL", new PostgresStore(sql)],
];

// 2. Queries drawn from the world with a fixed-seed generator, so every run draws the same ones.
let seed = 0x2545f491;
function random(): number {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 2 ** 32;
}
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

interface SampleTweet {
  text: string;
  lang: string;
  username: string;
  created_ms: number;
}
const bounds = db.query("SELECT min(id) AS low, max(id) AS high FROM tweets").get() as { low: number; high: number };
const sampleTweet = db.prepare(
  "SELECT t.text, t.lang, u.username, t.created_ms FROM tweets t JOIN users u ON u.id = t.author_id WHERE t.id >= ? ORDER BY t.id LIMIT 1",
);
const samples = Array.from(
  { length: 400 },
  () => sampleTweet.get(Math.floor(bounds.low + random() * (bounds.high - bounds.low))) as SampleTweet,
);
const words = samples.flatMap((t) => tokenize(t.text).filter((token) => /^\p{L}{4,}$/u.test(token)));
const hashtags = samples.flatMap((t) => tokenize(t.text).filter((token) => token.startsWith("#")));
const cashtags = samples.flatMap((t) => tokenize(t.text).filter((token) => /^\$[a-z]/.test(token)));
const phrases = samples.flatMap((t) => {
  const tokens = tokenize(t.text).filter((token) => /^\p{L}+$/u.test(token));
  const start = Math.floor(random() * Math.max(0, tokens.length - 2));
  return tokens.length >= 3 ? [tokens.slice(start, start + 2 + Math.floor(random() * 2)).join(" ")] : [];
});
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const word = () => pick(words);

const operators: Record<string, () => string> = {
  term: word,
  "two terms": () => `${word()} ${word()}`,
  phrase: () => `"${pick(phrases)}"`,
  hashtag: () => pick(hashtags),
  cashtag: () => (cashtags.length > 0 ? pick(cashtags) : "$btc"),
  "from:": () => `from:${pick(samples).username}`,
  "from: + term": () => {
    const tweet = pick(samples);
    return `from:${tweet.username} ${pick(tokenize(tweet.text).filter((token) => /^\p{L}+$/u.test(token))) ?? word()}`;
  },
  "lang: + term": () => `lang:${pick(samples).lang} ${word()}`,
  "since: + term": () => `since:${day(pick(samples).created_ms)} ${word()}`,
  "until: + term": () => `until:${day(pick(samples).created_ms)} ${word()}`,
  "until: alone": () => `until:${day(pick(samples).created_ms)}`,
  "min_faves: + term": () => `min_faves:${pick([2, 10, 50])} ${word()}`,
  "min_retweets: + term": () => `min_retweets:${pick([1, 5, 20])} ${word()}`,
  "min_faves: alone": () => `min_faves:${pick([10, 100, 1000])}`,
  "filter:links + term": () => `filter:links ${word()}`,
  "term -filter:replies": () => `${word()} -filter:replies`,
  "term -term": () => `${word()} -${word()}`,
  "negation only": () => pick([`-${word()}`, "-filter:replies", `-lang:${pick(samples).lang}`]),
  OR: () => `${word()} OR ${word()} OR ${pick(hashtags)}`,
  "OR with a count": () => `(${word()} OR min_faves:${pick([20, 100])}) lang:${pick(samples).lang}`,
};
const QUERIES_PER_OPERATOR = 25;

// 3. The figures.
function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
}

interface Figures {
  p50: number;
  p99: number;
  /** Searches refused for their budget (400), which are timed too. */
  refused: number;
}

async function measure(store: Store, texts: readonly string[], sortOrder: SearchSortOrder, pageNumber = 1) {
  const asts = texts.map((text) => parseQuery(text));
  // The cursor of the page before `pageNumber`, found once per query and left out of the timing.
  const cursors: (Cursor | undefined)[] = [];
  for (const ast of asts) {
    let after: Cursor | undefined;
    for (let page = 1; page < pageNumber && (page === 1 || after !== undefined); page++) {
      after = (await store.searchTweets(ast, sortOrder, { size: 20, after })).next;
    }
    cursors.push(after);
  }
  const times: number[] = [];
  let refused = 0;
  for (let run = 0; run < runs; run++) {
    const index = run % asts.length;
    const started = performance.now();
    await store
      .searchTweets(asts[index] as ReturnType<typeof parseQuery>, sortOrder, { size: 20, after: cursors[index] })
      .catch(() => refused++);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99), refused };
}

const cell = (figures: Figures) =>
  `${figures.p50.toFixed(2)} / ${figures.p99.toFixed(2)}${figures.refused > 0 ? ` (${figures.refused}×400)` : ""}`;
const row = (cells: string[]) =>
  console.log(cells.map((text, i) => (i === 0 ? text.padEnd(22) : text.padStart(24))).join(""));
const names = stores.map(([name]) => name);

console.log(
  `\nsearchTweets, first page of 20, ${runs} runs over ${QUERIES_PER_OPERATOR} queries per operator: p50 / p99 ms`,
);
row(["operator", ...names.map((name) => `${name} recency`), ...names.map((name) => `${name} relevancy`)]);
for (const [name, draw] of Object.entries(operators)) {
  const texts = Array.from({ length: QUERIES_PER_OPERATOR }, draw);
  const recency: Figures[] = [];
  const relevancy: Figures[] = [];
  for (const [, store] of stores) {
    recency.push(await measure(store, texts, "recency"));
    relevancy.push(await measure(store, texts, "relevancy"));
  }
  row([name, ...recency.map(cell), ...relevancy.map(cell)]);
}

console.log("\nkeyset pagination: the most common words at page 1 and page 50, recency: p50 / p99 ms");
row(["page", ...names]);
const frequency = new Map<string, number>();
for (const w of words) frequency.set(w, (frequency.get(w) ?? 0) + 1);
const common = [...frequency.entries()]
  .sort((a, b) => b[1] - a[1])
  .slice(0, QUERIES_PER_OPERATOR)
  .map(([w]) => w);
for (const pageNumber of [1, 50]) {
  const figures: Figures[] = [];
  for (const [, store] of stores) figures.push(await measure(store, common, "recency", pageNumber));
  row([`page ${pageNumber}`, ...figures.map(cell)]);
}

console.log("\nfollowers ids, pages of 5,000 of the 5 most-followed accounts, first and last page: p50 / p99 ms");
row(["page", ...names]);
const biggest = db
  .query<{ id: number }, []>(
    "SELECT followee_id AS id FROM follows GROUP BY followee_id ORDER BY COUNT(*) DESC LIMIT 5",
  )
  .all()
  .map((account) => String(account.id));
/** The cursor that reads a user's last page of follower ids (undefined when there is one page). */
async function lastPageCursor(store: Store, userId: string): Promise<Cursor | undefined> {
  let after: Cursor | undefined;
  for (;;) {
    const page = await store.graphIds(userId, "followers", after ? { size: 5000, after } : { size: 5000 });
    if (!page?.next) return after;
    after = page.next;
  }
}
async function idPages(store: Store, last: boolean): Promise<Figures> {
  const cursors = last ? await Promise.all(biggest.map((id) => lastPageCursor(store, id))) : [];
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const index = run % biggest.length;
    const after = cursors[index];
    const started = performance.now();
    await store.graphIds(biggest[index] as string, "followers", after ? { size: 5000, after } : { size: 5000 });
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99), refused: 0 };
}
for (const last of [false, true]) {
  const figures: Figures[] = [];
  for (const [, store] of stores) figures.push(await idPages(store, last));
  row([last ? "last page" : "first page", ...figures.map(cell)]);
}

db.close();
await sql.close();
server?.stop();
