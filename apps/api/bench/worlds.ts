// The large world the HTTP benchmarks serve, on each adapter: built once and kept (data/bench/large.db,
// and a PostgreSQL cluster in data/bench/postgres), and each run served from a copy of it, so that no run
// measures on the usage rows the runs before it charged.
import { copyFileSync, mkdirSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { openBackend } from "@social/composition";
import { LARGE_WORLD } from "@social/fixtures";
import { QUARTER_OF_MEMORY, startPostgres } from "@social/store-postgres/testing";
import { buildWorld, databaseFiles, hasWorld, openDatabase } from "@social/store-sqlite";
import { SQL } from "bun";

export const benchFolder = resolve(import.meta.dir, "../../../data/bench");
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/**
 * A fresh copy of the SQLite world at `worldPath` (built there first when missing), named `copyName`:
 * the world's file alone, so the copy starts with an empty ledger.
 */
export function sqliteCopy(worldPath: string, copyName: string): string {
  mkdirSync(join(worldPath, ".."), { recursive: true });
  const world = openDatabase(worldPath);
  if (!hasWorld(world)) {
    const started = performance.now();
    buildWorld(world, LARGE_WORLD);
    console.log(`built the large world in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  world.run("PRAGMA wal_checkpoint(TRUNCATE)");
  world.close();
  const copy = join(worldPath, "..", copyName);
  removeSqliteCopy(copy);
  copyFileSync(worldPath, copy);
  console.log(`database ${copy}: ${mb(statSync(copy).size)}, a copy of ${worldPath}`);
  return copy;
}

export function removeSqliteCopy(path: string): void {
  for (const file of databaseFiles(path)) rmSync(file, { force: true });
}

export interface PostgresWorld {
  /** The database the API serves. */
  url: string;
  /** The server's maintenance database, for a CHECKPOINT. */
  adminUrl: string;
  close(): Promise<void>;
}

/**
 * The large world on PostgreSQL: in the kept cluster (fsync and synchronous_commit on, a quarter of the
 * memory as shared_buffers, pg_stat_statements loaded), served from a copy named `copyName`; or, with
 * `url`, an operator's own database, where the world is built when missing and charged into as it is.
 */
export async function postgresWorld(options: { url?: string; copyName: string }): Promise<PostgresWorld> {
  if (options.url !== undefined) {
    await ensureWorld(options.url);
    return { url: options.url, adminUrl: options.url, close: async () => {} };
  }
  const postgres = await startPostgres({
    durable: true,
    sharedBuffers: QUARTER_OF_MEMORY,
    hugePages: true,
    keepIn: join(benchFolder, "postgres"),
    settings: ["shared_preload_libraries=pg_stat_statements"],
  });
  console.log(
    `PostgreSQL: shared_buffers ${postgres.hugePages ? "in huge pages" : "not in huge pages (reserving them needs root and free memory)"}`,
  );
  await ensureWorld(await postgres.createDatabase("large", { reuse: true }));
  await postgres.dropDatabase(options.copyName);
  const url = await postgres.createDatabase(options.copyName, { template: "large" });
  // The copy's pages are written out now rather than by the checkpointer during the first round.
  await checkpoint(postgres.url);
  return {
    url,
    adminUrl: postgres.url,
    async close() {
      await postgres.dropDatabase(options.copyName);
      postgres.stop();
    },
  };
}

async function ensureWorld(url: string): Promise<void> {
  const backend = await openBackend(url);
  try {
    if (!(await backend.hasWorld())) {
      const started = performance.now();
      await backend.buildWorld(LARGE_WORLD);
      console.log(`built the large world into PostgreSQL in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
  } finally {
    await backend.close();
  }
}

export async function checkpoint(url: string): Promise<void> {
  const admin = new SQL(url, { max: 1 });
  await admin`CHECKPOINT`;
  await admin.close();
}

/** A new account with credits enough for any run, and its key. */
export async function benchKey(databaseUrl: string, name: string): Promise<string> {
  const backend = await openBackend(databaseUrl);
  try {
    return (await backend.accounts.openAccount(name, 1_000_000_000)).key.key;
  } finally {
    await backend.close();
  }
}
