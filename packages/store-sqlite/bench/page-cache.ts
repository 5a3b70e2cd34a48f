// What another worker's commits cost this worker's reads, in CPU: one connection looks tweets up (a
// lookup's statement, by id with its author) while a second connection on the same file commits a
// small write every `--every` lookups, as a second worker's charges do. The reader's CPU time
// (process.cpuUsage: user + system, so read() calls count) per lookup, with its file memory-mapped
// and not (mmap_size 0), in alternating rounds on a copy of the large world; with the writes going to a
// second file the reader has ATTACHed (the ledger beside the world, issue #34's design); and with no
// writer at all, the floor.
//
//   bun packages/store-sqlite/bench/page-cache.ts [--world data/bench/large.db] [--every 10]
import { copyFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createAccount, openDatabase } from "../src/index.ts";

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
const ledgerCopy = join(values.world as string, "../page-cache-ledger.db");
const files = [copy, ledgerCopy].flatMap((path) => [path, `${path}-wal`, `${path}-shm`]);
for (const file of files) rmSync(file, { force: true });
copyFileSync(values.world as string, copy);
const reader = openDatabase(copy);
const writer = openDatabase(copy);
// The ledger in a file of its own: a second writer, and the reader's connection attaches it.
const ledgerWriter = openDatabase(ledgerCopy);
reader.run(`ATTACH DATABASE '${ledgerCopy}' AS ledger`);
const ids = (reader.query("SELECT id FROM tweets ORDER BY random() LIMIT 500").all() as { id: number }[]).map(
  (row) => row.id,
);
const lookup = reader.query("SELECT t.*, u.* FROM tweets t JOIN users u ON u.id = t.author_id WHERE t.id = ?");

/** The reader's CPU µs per lookup over `lookups` lookups, a commit by `by` every `commitEvery`. */
function measure(commitEvery: number | undefined, by = writer): number {
  const started = process.cpuUsage();
  let writerUs = 0;
  for (let i = 0; i < lookups; i++) {
    if (commitEvery !== undefined && i % commitEvery === 0) {
      const before = process.cpuUsage();
      createAccount(by, "another worker", 1);
      const spent = process.cpuUsage(before);
      writerUs += spent.user + spent.system;
    }
    lookup.get(ids[i % ids.length] as number);
  }
  const spent = process.cpuUsage(started);
  return (spent.user + spent.system - writerUs) / lookups;
}

/** As much of the file as SQLite maps (its compiled maximum caps it: 2 GB in Bun's build). */
const MAPPED_BYTES = 2 ** 40;
const results: Record<string, number[]> = {
  "no writer": [],
  mapped: [],
  "not mapped": [],
  "ledger file": [],
};
measure(undefined); // warm: every page the lookups need in the OS's cache
for (let round = 0; round < Number(values.rounds); round++) {
  reader.run(`PRAGMA mmap_size = ${MAPPED_BYTES}`);
  results["no writer"]?.push(measure(undefined));
  results.mapped?.push(measure(every));
  reader.run("PRAGMA mmap_size = 0");
  results["not mapped"]?.push(measure(every));
  results["ledger file"]?.push(measure(every, ledgerWriter));
}
reader.close();
writer.close();
ledgerWriter.close();
for (const file of files) rmSync(file, { force: true });

const middle = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
console.log(`reader CPU µs per lookup, a commit by another connection every ${every} lookups; median (min-max):`);
for (const [name, values] of Object.entries(results)) {
  console.log(
    `  ${name.padEnd(11)} ${middle(values).toFixed(2)} (${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)})`,
  );
}
