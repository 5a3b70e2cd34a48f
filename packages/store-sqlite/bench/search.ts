// Prints the store's figures: how long the default world and the large (1,000,000-tweet) world take to
// build into a file, how large the file is, and in-process p50/p99 of searchTweets for each operator of
// the search language, first page of 20, both sort orders, plus a deep recency page.
//
//   bun packages/store-sqlite/bench/search.ts [--database FILE] [--runs N]
//
// With --database pointing at an existing built large world, the builds are skipped and only search is
// measured. Queries are drawn from the world itself with a fixed seed, so runs are comparable. The
// machine may be shared: repeat a run before reading much into one figure.
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type Cursor, parseQuery, type SearchSortOrder, tokenize } from "@social/core";
import { DEFAULT_WORLD, LARGE_WORLD, type WorldOptions } from "@social/fixtures";
import { openDatabase } from "../src/database.ts";
import { SqliteStore } from "../src/store/sqlite-store.ts";
import { buildWorld, hasWorld } from "../src/world/build.ts";

const { values } = parseArgs({
  options: { database: { type: "string" }, runs: { type: "string", default: "200" } },
});
const runs = Number(values.runs);

function megabytes(path: string): string {
  const size = (suffix: string) => {
    try {
      return statSync(path + suffix).size;
    } catch {
      return 0;
    }
  };
  return `${((size("") + size("-wal")) / 1e6).toFixed(0)} MB`;
}

function timeBuild(options: WorldOptions, path: string): Database {
  const db = openDatabase(path);
  const started = performance.now();
  const meta = buildWorld(db, options);
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `build ${String(meta.counts.tweet).padStart(9)} tweets, ${meta.counts.user} users, ${meta.counts.follow} follows: ` +
      `${seconds.toFixed(1)} s, file ${megabytes(path)}`,
  );
  return db;
}

let db: Database;
let scratch: string | undefined;
const given = values.database === undefined ? undefined : openDatabase(values.database);
if (given !== undefined && hasWorld(given)) {
  db = given;
  console.log(`using the world in ${values.database} (${megabytes(values.database as string)})`);
} else {
  given?.close();
  scratch = mkdtempSync(join(tmpdir(), "search-bench-"));
  timeBuild(DEFAULT_WORLD, join(scratch, "default.db")).close();
  db = timeBuild(LARGE_WORLD, values.database ?? join(scratch, "large.db"));
}

// A fixed-seed generator, so every run draws the same queries from the same world.
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

const store = new SqliteStore(db);
const QUERIES_PER_OPERATOR = 25;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
}

async function measure(texts: readonly string[], sortOrder: SearchSortOrder, pageNumber = 1) {
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
  let items = 0;
  for (let run = 0; run < runs; run++) {
    const index = run % asts.length;
    const started = performance.now();
    const page = await store.searchTweets(asts[index] as ReturnType<typeof parseQuery>, sortOrder, {
      size: 20,
      after: cursors[index],
    });
    times.push(performance.now() - started);
    items += page.items.length;
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99), items: items / runs };
}

const row = (cells: string[]) =>
  console.log(cells.map((cell, i) => (i === 0 ? cell.padEnd(22) : cell.padStart(12))).join(""));
console.log(`\nsearchTweets, first page of 20, ${runs} runs over ${QUERIES_PER_OPERATOR} queries per operator (ms)`);
row(["operator", "recency p50", "p99", "relevancy p50", "p99", "rows/page"]);
for (const [name, draw] of Object.entries(operators)) {
  const texts = Array.from({ length: QUERIES_PER_OPERATOR }, draw);
  const recency = await measure(texts, "recency");
  const relevancy = await measure(texts, "relevancy");
  row([
    name,
    recency.p50.toFixed(2),
    recency.p99.toFixed(2),
    relevancy.p50.toFixed(2),
    relevancy.p99.toFixed(2),
    recency.items.toFixed(1),
  ]);
}

console.log("\nkeyset pagination: the most common words at page 1 and page 50, recency (ms)");
const frequency = new Map<string, number>();
for (const w of words) frequency.set(w, (frequency.get(w) ?? 0) + 1);
const common = [...frequency.entries()]
  .sort((a, b) => b[1] - a[1])
  .slice(0, QUERIES_PER_OPERATOR)
  .map(([w]) => w);
for (const pageNumber of [1, 50]) {
  const { p50, p99 } = await measure(common, "recency", pageNumber);
  row([`page ${pageNumber}`, p50.toFixed(2), p99.toFixed(2)]);
}

console.log("\nfollowers ids, pages of 5,000 of the 5 most-followed accounts, first and last page (ms)");
const biggest = db
  .query<{ id: number }, []>(
    "SELECT followee_id AS id FROM follows GROUP BY followee_id ORDER BY COUNT(*) DESC LIMIT 5",
  )
  .all()
  .map((account) => String(account.id));
/** The cursor that reads a user's last page of follower ids (undefined when there is one page). */
async function lastPageCursor(userId: string): Promise<Cursor | undefined> {
  let after: Cursor | undefined;
  for (;;) {
    const page = await store.graphIds(userId, "followers", after ? { size: 5000, after } : { size: 5000 });
    if (!page?.next) return after;
    after = page.next;
  }
}
const lastCursors = await Promise.all(biggest.map(lastPageCursor));
for (const [label, cursorOf] of [
  ["first page", () => undefined],
  ["last page", (index: number) => lastCursors[index]],
] as const) {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const index = run % biggest.length;
    const after = cursorOf(index);
    const started = performance.now();
    await store.graphIds(biggest[index] as string, "followers", after ? { size: 5000, after } : { size: 5000 });
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  row([label, percentile(times, 0.5).toFixed(2), percentile(times, 0.99).toFixed(2)]);
}

db.close();
if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
