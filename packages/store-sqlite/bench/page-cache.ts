// What another worker's commits cost this worker's reads, in CPU: one connection looks tweets up (a
// lookup's statement, by id with its author) while a second connection on the same database commits a
// small write every `--every` lookups, as a second worker's charges do: into the ledger's file, where
// charges go (ledger-file.ts), or into the world's file, where they went when the ledger shared it. The
// reader's CPU time (process.cpuUsage: user + system, so read() calls count) per lookup and its read()
// calls per lookup, in alternating rounds on a copy of the large world, and with no writer at all, the
// floor.
//
//   bun packages/store-sqlite/bench/page-cache.ts [--world data/bench/large.db] [--every 10]
import { copyFileSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createAccount, databaseFiles, openDatabase } from "../src/index.ts";

const { values } = parseArgs({
  options: {
    world: { type: "string", default: resolve(import.meta.dir, "../../../data/bench/large.db") },
    every: { type: "string", default: "10" },
    lookups: { type: "string", default: "200000" },
    rounds: { type: "string", default: "5" },
  },
});
const every = Number(values.every);
const lookups = Number(values.lookups);
const copy = join(values.world as string, "../page-cache.db");
const removeCopy = () => {
  for (const file of databaseFiles(copy)) rmSync(file, { force: true });
};
removeCopy();
openDatabase(values.world as string).close();
copyFileSync(values.world as string, copy);
const reader = openDatabase(copy);
const writer = openDatabase(copy);
writer.run("CREATE TABLE main.page_cache_writes (n INTEGER)");
const writes = {
  "into the ledger's file": () => createAccount(writer, "another worker", 1),
  "into the world's file": () => writer.run("INSERT INTO main.page_cache_writes (n) VALUES (1)"),
};
const ids = (reader.query("SELECT id FROM tweets ORDER BY random() LIMIT 500").all() as { id: number }[]).map(
  (row) => row.id,
);
const lookup = reader.query("SELECT t.*, u.* FROM tweets t JOIN users u ON u.id = t.author_id WHERE t.id = ?");

/** read() calls of this process so far (/proc/self/io's syscr). */
const readCalls = () => Number(/syscr: (\d+)/.exec(readFileSync("/proc/self/io", "utf8"))?.[1]);

/** The reader's CPU µs and read() calls per lookup over `lookups` lookups, `write` every `every`. */
function measure(write: (() => unknown) | undefined): { us: number; reads: number } {
  const started = process.cpuUsage();
  const readsBefore = readCalls();
  let writerUs = 0;
  let writerReads = 0;
  for (let i = 0; i < lookups; i++) {
    if (write !== undefined && i % every === 0) {
      const [before, reads] = [process.cpuUsage(), readCalls()];
      write();
      const spent = process.cpuUsage(before);
      writerUs += spent.user + spent.system;
      writerReads += readCalls() - reads;
    }
    lookup.get(ids[i % ids.length] as number);
  }
  const spent = process.cpuUsage(started);
  return {
    us: (spent.user + spent.system - writerUs) / lookups,
    reads: (readCalls() - readsBefore - writerReads) / lookups,
  };
}

const results: Record<string, { us: number; reads: number }[]> = { "no writer": [] };
for (const name of Object.keys(writes)) results[name] = [];
measure(undefined); // warm: every page the lookups need in the OS's cache
for (let round = 0; round < Number(values.rounds); round++) {
  results["no writer"]?.push(measure(undefined));
  for (const [name, write] of Object.entries(writes)) results[name]?.push(measure(write));
}
reader.close();
writer.close();
removeCopy();

const middle = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const spread = (values: number[], digits: number) =>
  `${middle(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)})`;
console.log(`the reader per lookup, another connection committing every ${every} lookups; median (min-max):`);
for (const [name, runs] of Object.entries(results)) {
  console.log(
    `  ${name.padEnd(24)} CPU µs ${spread(
      runs.map((run) => run.us),
      2,
    )}   read() calls ${spread(
      runs.map((run) => run.reads),
      2,
    )}`,
  );
}
