// `credits grant`.
import { parseArgs } from "node:util";
import { grantCredits } from "@social/store-sqlite";
import { expectPositionals, parseCount, subcommand, usageErrors } from "../cli.ts";
import { withDatabase } from "../database.ts";

export async function creditsCommand(args: readonly string[]): Promise<void> {
  const [, rest] = subcommand("credits", args, ["grant"]);
  const { values, positionals } = usageErrors(() =>
    parseArgs({ args: rest, options: { reason: { type: "string" } }, allowPositionals: true }),
  );
  const [accountId = "", amount = ""] = expectPositionals(positionals, ["ACCOUNT_ID", "N"]);
  const credits = parseCount(amount, "N", 1);
  const balance = await withDatabase((db) => grantCredits(db, accountId, credits, values.reason));
  console.log(`granted ${credits} credits to ${accountId}; balance ${balance}`);
}
