// The operator's database: DATABASE_URL, as the server reads it, opened only once the command line has
// been validated, and closed (checkpointing the WAL) when the command ends.
import type { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { databasePath, openDatabase } from "@social/store-sqlite";

export const DEFAULT_DATABASE_URL = "file:data/social.db";

export async function withDatabase<T>(work: (db: Database) => T | Promise<T>): Promise<T> {
  const url = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  const path = databasePath(url);
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = openDatabase(url);
  try {
    return await work(db);
  } finally {
    db.close();
  }
}
