// A file named on the command line, checked before the database is opened.
import { accessSync, constants, statSync } from "node:fs";
import { CommandError } from "../cli.ts";

/** Every file must be a readable file before the database is opened, so a typo imports nothing. */
export function checkedFile(path: string): { path: string; size: number } {
  try {
    accessSync(path, constants.R_OK);
    const stat = statSync(path);
    if (!stat.isFile()) throw new CommandError(`${path} is not a file`);
    return { path, size: stat.size };
  } catch (error) {
    if (error instanceof CommandError) throw error;
    throw new CommandError(`${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
}
