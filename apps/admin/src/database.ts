// The operator's database: DATABASE_URL, as the server reads it, opened only once the command line has
// been validated, and closed (checkpointing the WAL) when the command ends. Commands see it through
// the Accounts port and the world builder, never as a database handle.
import type { Accounts } from "@social/core";
import type { WorldOptions } from "@social/fixtures";
import {
  type BuildProgress,
  buildWorld,
  DEFAULT_DATABASE_URL,
  openDatabase,
  SqliteAccounts,
  type WorldMeta,
} from "@social/store-sqlite";
import { CommandError } from "./cli.ts";

export interface Operator {
  accounts: Accounts;
  /** Replaces the social world; the ledger is left as it is. */
  buildWorld(options: WorldOptions, onProgress: (progress: BuildProgress) => void): WorldMeta;
}

/** A DATABASE_URL that cannot be opened is the operator's to fix: a message, not a stack. */
function opened(url: string) {
  try {
    return openDatabase(url);
  } catch (error) {
    throw new CommandError(error instanceof Error ? error.message : String(error));
  }
}

export async function withOperator<T>(work: (operator: Operator) => T | Promise<T>): Promise<T> {
  const db = opened(process.env.DATABASE_URL || DEFAULT_DATABASE_URL);
  try {
    return await work({
      accounts: new SqliteAccounts(db),
      buildWorld: (options, onProgress) => buildWorld(db, options, onProgress),
    });
  } finally {
    db.close();
  }
}
