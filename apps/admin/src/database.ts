// The operator's database: DATABASE_URL, as the server reads it, opened only once the command line has
// been validated, and closed (checkpointing the WAL) when the command ends.
import type { Database } from "bun:sqlite";
import { DEFAULT_DATABASE_URL, openDatabase } from "@social/store-sqlite";

export async function withDatabase<T>(work: (db: Database) => T | Promise<T>): Promise<T> {
  const db = openDatabase(process.env.DATABASE_URL || DEFAULT_DATABASE_URL);
  try {
    return await work(db);
  } finally {
    db.close();
  }
}
