// A fresh database reached as two processes would reach it, for the conformance suites' races: two
// SQLite connections to one file.
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../src/database.ts";

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
