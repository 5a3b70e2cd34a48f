// A fresh database reached as two processes would reach it, for the conformance suites' races: two
// SQLite connections to one file, or two PostgreSQL pools that share nothing but the server.
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "@social/store-sqlite";
import type { SQL } from "bun";
import { openPostgres } from "../../src/database.ts";
import type { PostgresServer } from "../../testing/pg-server.ts";

export async function twoSqliteConnections(name: string): Promise<{ db: Database; peerDb: Database; close(): void }> {
  const dir = mkdtempSync(join(tmpdir(), `${name}-conformance-`));
  const url = `file:${join(dir, "social.db")}`;
  const db = openDatabase(url);
  const peerDb = openDatabase(url);
  return {
    db,
    peerDb,
    close() {
      peerDb.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let databases = 0;

export async function twoPostgresPools(
  server: PostgresServer,
  name: string,
): Promise<{ sql: SQL; peerSql: SQL; close(): Promise<void> }> {
  const url = await server.createDatabase(`${name}_${process.pid}_${++databases}`);
  const sql = await openPostgres(url, { max: 8 });
  const peerSql = await openPostgres(url, { max: 8 });
  return {
    sql,
    peerSql,
    async close() {
      await Promise.all([sql.close(), peerSql.close()]);
    },
  };
}
