// `usage ACCOUNT_ID`: what an account has left and what it spent, as the dashboard will chart it.
import { parseArgs } from "node:util";
import { LedgerError } from "@social/core";
import { expectPositionals, parseCount, usageErrors } from "../cli.ts";
import { withOperator } from "../database.ts";
import { formatTable, formatTime } from "../format.ts";

const BAR_WIDTH = 40;

export async function usageCommand(args: readonly string[]): Promise<void> {
  const { values, positionals } = usageErrors(() =>
    parseArgs({
      args: [...args],
      options: { days: { type: "string" }, limit: { type: "string" } },
      allowPositionals: true,
    }),
  );
  const [accountId = ""] = expectPositionals(positionals, ["ACCOUNT_ID"]);
  const days = values.days === undefined ? 30 : parseCount(values.days, "--days", 1);
  const limit = values.limit === undefined ? 20 : parseCount(values.limit, "--limit", 1);

  const { account, perDay, latest } = await withOperator(async ({ accounts }) => {
    const account = await accounts.account(accountId);
    if (!account) throw new LedgerError("unknown_account", `no account ${accountId}`);
    return {
      account,
      perDay: await accounts.dailyUsage(accountId, days),
      latest: await accounts.recentRequests(accountId, limit),
    };
  });

  const most = Math.max(1, ...perDay.map((day) => day.credits));
  console.log(`${account.id}  ${JSON.stringify(account.name)}  balance ${account.balance} credits`);
  console.log(`\ncredits per day, last ${days} days (UTC)`);
  console.log(
    formatTable(
      perDay.map((day) => [
        day.day,
        String(day.credits).padStart(String(most).length),
        `${day.requests} req`,
        "█".repeat(Math.ceil((day.credits / most) * BAR_WIDTH)),
      ]),
    ),
  );
  console.log(`\nlatest ${latest.length} requests`);
  if (latest.length === 0) return;
  console.log(
    formatTable([
      ["TIME", "CREDITS", "ENDPOINT", "KEY ID", "REQUEST ID"],
      ...latest.map((request) => [
        formatTime(request.createdAt),
        String(request.credits),
        request.endpoint,
        request.keyId,
        request.requestId,
      ]),
    ]),
  );
}
