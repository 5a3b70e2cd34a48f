// `credits grant`: the operator's gift (its reason, or "operator grant"), or a purchase of a plan.
import { parseArgs } from "node:util";
import { purchaseReason } from "@social/core";
import { expectPositionals, parseCount, subcommand, UsageError, usageErrors } from "../cli.ts";
import { withOperator } from "../database.ts";

export async function creditsCommand(args: readonly string[]): Promise<void> {
  const [, rest] = subcommand("credits", args, ["grant"]);
  const { values, positionals } = usageErrors(() =>
    parseArgs({
      args: rest,
      options: { reason: { type: "string" }, plan: { type: "string" } },
      allowPositionals: true,
    }),
  );
  if (values.reason !== undefined && values.plan !== undefined) {
    throw new UsageError("--plan names a purchase's reason: give --reason or --plan, not both");
  }
  // A purchase is named as one on the customer's billing page, never as an operator's gift.
  const reason = values.plan !== undefined ? purchaseReason(values.plan) : values.reason;
  const [accountId = "", amount = ""] = expectPositionals(positionals, ["ACCOUNT_ID", "N"]);
  const credits = parseCount(amount, "N", 1);
  const balance = await withOperator(({ accounts }) => accounts.grantCredits(accountId, credits, reason));
  console.log(`granted ${credits} credits to ${accountId}; balance ${balance}`);
}
