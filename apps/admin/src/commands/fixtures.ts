// `fixtures build`: waits for buildWorld in @social/store-sqlite, which is being written.
import { parseArgs } from "node:util";
import { CommandError, expectPositionals, parseCount, subcommand, usageErrors } from "../cli.ts";

export async function fixturesCommand(args: readonly string[]): Promise<void> {
  const [, rest] = subcommand("fixtures", args, ["build"]);
  const { values, positionals } = usageErrors(() =>
    parseArgs({
      args: rest,
      options: { tweets: { type: "string" }, seed: { type: "string" } },
      allowPositionals: true,
    }),
  );
  expectPositionals(positionals, []);
  if (values.tweets !== undefined) parseCount(values.tweets, "--tweets", 1);
  throw new CommandError("fixtures build is unavailable: @social/store-sqlite does not export buildWorld yet");
}
