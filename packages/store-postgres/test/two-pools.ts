// A fresh database reached as two processes would reach it, for the conformance suites' races: two
// PostgreSQL pools that share nothing but the server.
import type { SQL } from "bun";
import { openPostgres } from "../src/database.ts";
import type { PostgresServer } from "../testing/pg-server.ts";

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
