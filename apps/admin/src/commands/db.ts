// `db migrate`: brings the schema of DATABASE_URL's database up to date and does nothing else. Opening
// the backend is what migrates (SQLite as it opens the file, PostgreSQL under an advisory lock, so that
// servers starting together never migrate twice), so this command opens and closes it: a step an
// operator can run, and see succeed, before starting the servers of a new release.
import { parseArgs } from "node:util";
import { describeDatabase } from "@social/composition";
import { expectPositionals, subcommand, usageErrors } from "../cli.ts";
import { databaseUrl, withOperator } from "../database.ts";

export async function dbCommand(args: readonly string[]): Promise<void> {
  const [, rest] = subcommand("db", args, ["migrate"]);
  const { positionals } = usageErrors(() => parseArgs({ args: rest, options: {}, allowPositionals: true }));
  expectPositionals(positionals, []);
  const url = databaseUrl();
  await withOperator(() => undefined);
  console.log(`${describeDatabase(url)}: schema up to date`);
}
