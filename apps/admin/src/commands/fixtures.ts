// `fixtures build`: replaces the social world with a freshly generated one. The credit ledger lives in
// the same database and is left as it is.
import { parseArgs } from "node:util";
import { DEFAULT_WORLD } from "@social/fixtures";
import { expectPositionals, parseCount, subcommand, UsageError, usageErrors } from "../cli.ts";
import { withOperator } from "../database.ts";
import { formatTable } from "../format.ts";
import { progressBar } from "../progress.ts";

/** The generator's smallest world (MIN_TWEETS in fixtures/src/scenario.ts, which the package does not export). */
const MIN_TWEETS = 1000;

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
  if (values.seed === "") throw new UsageError("--seed must not be empty");
  const options = {
    ...DEFAULT_WORLD,
    tweets: values.tweets === undefined ? DEFAULT_WORLD.tweets : parseCount(values.tweets, "--tweets", MIN_TWEETS),
    seed: values.seed ?? DEFAULT_WORLD.seed,
  };

  const bar = progressBar("tweets");
  const started = performance.now();
  const meta = await withOperator((operator) =>
    operator.buildWorld(options, (progress) => bar.update(progress.tweets, progress.totalTweets)),
  );
  bar.finish();
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`built world "${meta.seed}" (clock ${meta.clock}) in ${seconds} s`);
  console.log(formatTable(Object.entries(meta.counts).map(([kind, count]) => [kind, count.toLocaleString("en-US")])));
}
