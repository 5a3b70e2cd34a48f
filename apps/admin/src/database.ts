// The operator's database: DATABASE_URL, as the server reads it, opened only once the command line has
// been validated (opening migrates it), and closed when the command ends. Commands see it through the
// Backend (the Accounts port and the world builder), never as a database handle, so every command
// works on SQLite and on PostgreSQL alike.
import { type Backend, DEFAULT_DATABASE_URL, openBackend } from "@social/composition";
import { CommandError } from "./cli.ts";

/** The database the operator's DATABASE_URL names; a location of its own for `db migrate`'s message. */
export function databaseUrl(): string {
  return process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
}

/**
 * A DATABASE_URL that cannot be opened (no adapter for its scheme, a file that cannot be created, a
 * PostgreSQL that cannot be reached) is the operator's to fix: a message, not a stack.
 */
async function opened(url: string): Promise<Backend> {
  try {
    return await openBackend(url);
  } catch (error) {
    throw new CommandError(error instanceof Error ? error.message : String(error));
  }
}

export async function withOperator<T>(work: (operator: Backend) => T | Promise<T>): Promise<T> {
  const backend = await opened(databaseUrl());
  try {
    return await work(backend);
  } finally {
    await backend.close();
  }
}
