// Builds the generator's world into a database, all or nothing: the wipe, every record and the indexes
// are one transaction, so readers see the old world (or none) until the new one is complete.
import type { Database } from "bun:sqlite";
import type { WorldSink } from "@social/core";
import { generateWorld, type WorldOptions } from "@social/fixtures";
import { WORLD_TABLES } from "@social/store-common";
import { WORLD_FTS_TABLES } from "./schema.ts";
import { type WorldCounts, type WorldMeta, WorldWriter } from "./writer.ts";

export interface BuildProgress {
  tweets: number;
  totalTweets: number;
}

/** Page cache for the build, in KiB: the indexes of a million tweets stay in memory while they grow. */
const BUILD_CACHE_KIB = 512 * 1024;

export function readWorldMeta(db: Database): WorldMeta | undefined {
  const row = db
    .query<{ seed: string; clock: string; counts: string }, []>(
      "SELECT seed, clock, counts FROM world_meta WHERE id = 1",
    )
    .get();
  return row === null ? undefined : { seed: row.seed, clock: row.clock, counts: JSON.parse(row.counts) as WorldCounts };
}

export function hasWorld(db: Database): boolean {
  return readWorldMeta(db) !== undefined;
}

export function buildWorld(
  db: Database,
  options: WorldOptions,
  onProgress?: (progress: BuildProgress) => void,
): WorldMeta {
  const writer = new WorldWriter(db);
  let totalTweets = 0;
  const sink: WorldSink = {
    begin(meta) {
      totalTweets = meta.tweets;
      writer.begin(meta);
    },
    write(batch) {
      writer.write(batch);
      onProgress?.({ tweets: writer.counts.tweet, totalTweets });
    },
    end() {
      writer.end();
    },
  };
  const { cache_size: cacheSize } = db.query<{ cache_size: number }, []>("PRAGMA cache_size").get() ?? {
    cache_size: -2000,
  };
  db.run(`PRAGMA cache_size = ${-BUILD_CACHE_KIB}`);
  try {
    db.transaction(() => {
      withoutSecondaryIndexes(db, () => {
        for (const table of WORLD_TABLES) db.run(`DELETE FROM ${table}`);
        for (const table of WORLD_FTS_TABLES) db.run(`INSERT INTO ${table} (${table}) VALUES ('delete-all')`);
        generateWorld(options, sink);
      });
    }).immediate();
  } finally {
    db.run(`PRAGMA cache_size = ${cacheSize}`);
  }
  // The whole world went through the write-ahead log; fold it into the database file now rather than
  // leave a log as large as the database behind.
  db.run("PRAGMA wal_checkpoint(TRUNCATE)");
  const meta = readWorldMeta(db);
  if (meta === undefined) throw new Error("buildWorld: the generator never ended the world");
  return meta;
}

/**
 * Runs `load` with the world tables' secondary indexes dropped and creates them again afterwards, in
 * the caller's transaction: sorting once at the end is cheaper than growing each index row by row. The
 * definitions are read from the database, so they are whatever the migrations made them.
 */
function withoutSecondaryIndexes(db: Database, load: () => void): void {
  const tables = WORLD_TABLES.map((table) => `'${table}'`).join(", ");
  const indexes = db
    .query<{ name: string; sql: string }, []>(
      `SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (${tables})`,
    )
    .all();
  for (const { name } of indexes) db.run(`DROP INDEX "${name}"`);
  load();
  for (const { sql } of indexes) db.run(sql);
}
