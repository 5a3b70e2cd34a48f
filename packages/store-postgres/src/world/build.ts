// Builds the generator's world into PostgreSQL, all or nothing: the wipe, every record, the indexes and
// the planner's statistics are one transaction. The wipe takes the world tables' exclusive locks, so
// readers wait for the new world rather than see part of it, and see the old one if the build fails.

import type { WorldSink } from "@social/core";
import { generateWorld, type WorldOptions } from "@social/fixtures";
import { WORLD_TABLES } from "@social/store-common";
import type { SQL, TransactionSQL } from "bun";
import { type WorldMeta, WorldWriter } from "./writer.ts";

export interface BuildProgress {
  tweets: number;
  totalTweets: number;
}

/** Memory for each index build at the end: the indexes of a million tweets sort in memory. */
const BUILD_MAINTENANCE_MEMORY = "512MB";

export async function readWorldMeta(sql: SQL | TransactionSQL): Promise<WorldMeta | undefined> {
  const [row] = await sql<{ seed: string; clock: string; counts: string }[]>`
    SELECT seed, clock, counts FROM world_meta WHERE id = 1`;
  return row === undefined ? undefined : { seed: row.seed, clock: row.clock, counts: JSON.parse(row.counts) };
}

export async function hasWorld(sql: SQL): Promise<boolean> {
  return (await readWorldMeta(sql)) !== undefined;
}

export async function buildWorld(
  sql: SQL,
  options: WorldOptions,
  onProgress?: (progress: BuildProgress) => void,
): Promise<WorldMeta> {
  return sql.begin(async (tx) => {
    await tx.unsafe(`SET LOCAL maintenance_work_mem = '${BUILD_MAINTENANCE_MEMORY}'`);
    await tx.unsafe(`TRUNCATE ${WORLD_TABLES.join(", ")}`);
    let totalTweets = 0;
    const writer = new WorldWriter(tx, (tweets) => onProgress?.({ tweets, totalTweets }));
    const sink: WorldSink = {
      begin(meta) {
        totalTweets = meta.tweets;
        writer.begin(meta);
      },
      write: (batch) => writer.write(batch),
      end: () => writer.end(),
    };
    await withoutSecondaryIndexes(tx, async () => {
      try {
        generateWorld(options, sink);
      } finally {
        // Whatever was sent must settle before the transaction ends, even when the generator failed.
        await writer.finished();
      }
    });
    await tx.unsafe(`ANALYZE ${WORLD_TABLES.join(", ")}`);
    const meta = await readWorldMeta(tx);
    if (meta === undefined) throw new Error("buildWorld: the generator never ended the world");
    return meta;
  });
}

/**
 * Runs `load` with the world tables' secondary indexes dropped and creates them again afterwards, in
 * the caller's transaction: sorting once at the end is cheaper than growing each index row by row. The
 * definitions are read from the catalog, so they are whatever the migrations made them; the indexes
 * behind primary keys stay.
 */
async function withoutSecondaryIndexes(tx: TransactionSQL, load: () => Promise<void>): Promise<void> {
  const indexes = await tx<{ name: string; definition: string }[]>`
    SELECT i.indexname AS name, i.indexdef AS definition FROM pg_indexes i
    WHERE i.schemaname = current_schema() AND i.tablename IN ${tx([...WORLD_TABLES])}
      AND NOT EXISTS (SELECT 1 FROM pg_constraint c
                      WHERE c.conindid = format('%I.%I', i.schemaname, i.indexname)::regclass)`;
  for (const { name } of indexes) await tx`DROP INDEX ${tx(name)}`;
  await load();
  for (const { definition } of indexes) await tx.unsafe(definition);
}
