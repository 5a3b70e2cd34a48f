// The default world built once into PostgreSQL for the test files that read it (the store conformance
// suite, the build's own tests). bun test runs every file in one process but fires no exit event, so the
// world is shared by the files that use it at once and removed by the last one to let go.

import { SEARCH_ORACLE_LIMITS } from "@social/conformance";
import { DEFAULT_WORLD } from "@social/fixtures";
import type { SQL } from "bun";
import { openPostgres } from "../src/database.ts";
import { PostgresStore } from "../src/store/postgres-store.ts";
import { buildWorld } from "../src/world/build.ts";
import { type PostgresServer, startPostgres } from "../testing/pg-server.ts";

export interface DefaultWorld {
  server: PostgresServer;
  sql: SQL;
  store: PostgresStore;
}

async function buildDefaultWorld(): Promise<DefaultWorld> {
  const server = await startPostgres();
  const sql = await openPostgres(await server.createDatabase("default_world"));
  await buildWorld(sql, DEFAULT_WORLD);
  // A walk shorter than the world, so that search pages also gather through the index; the budgets of
  // the search oracle, so that a busy machine cannot turn an answer the suite checks into a refusal.
  return { server, sql, store: new PostgresStore(sql, { newestWalk: 500, search: SEARCH_ORACLE_LIMITS }) };
}

let shared: { world: Promise<DefaultWorld>; users: number } | undefined;

/** The default world in PostgreSQL; every call must be matched by one of releaseDefaultWorld. */
export function acquireDefaultWorld(): Promise<DefaultWorld> {
  shared ??= { world: buildDefaultWorld(), users: 0 };
  shared.users++;
  return shared.world;
}

export async function releaseDefaultWorld(): Promise<void> {
  if (shared === undefined || --shared.users > 0) return;
  const { world } = shared;
  shared = undefined;
  const { sql, server } = await world;
  await sql.close();
  server.stop();
}
