// `bun run bench:import`: the import rate of an X API v2 archive on each adapter. The archive is the
// generated world written as X writes it (users as user objects, tweets as pages of 100 with every field
// the /2 layer renders), once per size and kept; each run imports it into an empty SQLite file and an
// empty PostgreSQL database, as `bun run admin import` does, and prints tweets per second. The baseline
// read in the same run is the generated build of the same world on the same adapter (its fastest bulk
// path, indexes made at the end), so the import's figure is also a ratio to it.
import { createWriteStream, existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { openBackend } from "@social/composition";
import { importSources } from "@social/core";
import { generateWorld } from "@social/fixtures";
import { startPostgres } from "@social/store-postgres/testing";
import { fileLines } from "../../admin/src/import/json-lines.ts";
import { TWEET_FIELDS, USER_FIELDS, v2Tweet, v2User } from "../src/v2/fields.ts";

const root = resolve(import.meta.dir, "../../..");
const { values } = parseArgs({ options: { tweets: { type: "string", default: "1000000" } } });
const tweets = Number(values.tweets);
const world = { seed: "import-bench", tweets, clock: "2026-11-20T12:00:00.000Z" };
const dir = join(root, "data/bench");
mkdirSync(dir, { recursive: true });
const archive = join(dir, `archive-${tweets}.jsonl`);

/** Writes the generated world as an archive (synchronously: the generator is). */
async function writeArchive(): Promise<void> {
  const out = createWriteStream(archive);
  const tweetFields = new Set(TWEET_FIELDS);
  const userFields = new Set(USER_FIELDS);
  let page: unknown[] = [];
  const chunks: string[] = [];
  const flush = () => {
    if (page.length > 0) chunks.push(`${JSON.stringify({ data: page, meta: { result_count: page.length } })}\n`);
    page = [];
  };
  generateWorld(world, {
    begin() {},
    write(batch) {
      for (const record of batch) {
        if (record.kind === "user") chunks.push(`${JSON.stringify(v2User(record.user, userFields))}\n`);
        if (record.kind !== "tweet") continue;
        page.push(v2Tweet(record.tweet, tweetFields));
        if (page.length === 100) flush();
      }
      if (chunks.length > 0) out.write(chunks.splice(0).join(""));
    },
    end() {
      flush();
      out.write(chunks.splice(0).join(""));
    },
  });
  await new Promise<void>((done, fail) => out.end((error?: Error | null) => (error ? fail(error) : done())));
}

if (!existsSync(archive)) {
  const started = performance.now();
  await writeArchive();
  console.log(
    `wrote ${archive} (${(statSync(archive).size / 1e6).toFixed(0)} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

async function measure(adapter: string, databaseUrl: () => Promise<string>): Promise<void> {
  const build = await openBackend(await databaseUrl());
  let started = performance.now();
  await build.buildWorld(world);
  const buildSeconds = (performance.now() - started) / 1000;
  await build.close();

  const backend = await openBackend(await databaseUrl());
  const reader = fileLines(archive);
  started = performance.now();
  const report = await importSources([{ name: archive, lines: () => reader.lines() }], backend.worldImport(), {
    format: "auto",
    strict: false,
  });
  const seconds = (performance.now() - started) / 1000;
  await backend.close();
  const rate = report.tweets.added / seconds;
  console.log(
    `${adapter}: imported ${report.tweets.added.toLocaleString("en-US")} tweets and ${report.users.added.toLocaleString("en-US")} users in ${seconds.toFixed(1)} s: ${Math.round(rate).toLocaleString("en-US")} tweets/s ` +
      `(the generated build of the same world: ${buildSeconds.toFixed(1)} s, ${Math.round(tweets / buildSeconds).toLocaleString("en-US")} tweets/s; import/build ${(buildSeconds / seconds).toFixed(2)})` +
      (report.refused > 0 ? `, ${report.refused} refused` : ""),
  );
}

let sqliteRuns = 0;
await measure("sqlite", async () => {
  const file = join(dir, `import-bench-${++sqliteRuns}.db`);
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true });
  return `file:${file}`;
});
const postgres = await startPostgres();
try {
  let runs = 0;
  await measure("postgres", () => postgres.createDatabase(`import_bench_${++runs}`));
} finally {
  await postgres.stop();
}
