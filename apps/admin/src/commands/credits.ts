// `credits grant`.
import { parseArgs } from "node:util";
import { expectPositionals, parseCount, subcommand, usageErrors } from "../cli.ts";
import { withOperator } from "../database.ts";

export async function creditsCommand(args: readonly string[]): Promise<void> {
  const [, rest] = subcommand("credits", args, ["grant"]);
  const { values, positionals } = usageErrors(() =>
    parseArgs({ args: rest, options: { reason: { type: "string" } }, allowPositionals: true }),
  );
  const [accountId = "", amount = ""] = expectPositionals(positionals, ["ACCOUNT_ID", "N"]);
  const credits = parseCount(amount, "N", 1);
  const balance = await withOperator(({ accounts }) => accounts.grantCredits(accountId, credits, values.reason));
  console.log(`granted ${credits} credits to ${accountId}; balance ${balance}`);
}
