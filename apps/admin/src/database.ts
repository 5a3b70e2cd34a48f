// The operator's database: DATABASE_URL, as every program reads it (readAdminConfig), opened only once
// the command line has been validated (opening migrates it), and closed when the command ends. Commands
// see it through the Backend (the Accounts port and the world builder), never as a database handle, so
// every command works on SQLite and on PostgreSQL alike.
import { type Backend, openBackend, readAdminConfig } from "@social/composition";
import { CommandError } from "./cli.ts";

/**
 * A DATABASE_URL that cannot be used (no adapter for its scheme, a file that cannot be created, a
 * PostgreSQL that cannot be reached) is the operator's to fix: a message, not a stack.
 */
function operatorsMistake(error: unknown): CommandError {
  return new CommandError(error instanceof Error ? error.message : String(error));
}

/** The database the operator's DATABASE_URL names; a location of its own for `db migrate`'s message. */
export function databaseUrl(): string {
  try {
    return readAdminConfig(process.env).databaseUrl;
  } catch (error) {
    throw operatorsMistake(error);
  }
}

export async function withOperator<T>(work: (operator: Backend) => T | Promise<T>): Promise<T> {
  const backend = await openBackend(databaseUrl()).catch((error: unknown) => {
    throw operatorsMistake(error);
  });
  try {
    return await work(backend);
  } finally {
    await backend.close();
  }
}
