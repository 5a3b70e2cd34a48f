// `keys create | list | revoke`.
import { parseArgs } from "node:util";
import { describeAllowance, describeKeyLimit, LedgerError, parseKeyOptions } from "@social/core";
import { expectPositionals, parseCount, subcommand, UsageError, usageErrors } from "../cli.ts";
import { withOperator } from "../database.ts";
import { formatTable, formatTime } from "../format.ts";

export async function keysCommand(args: readonly string[]): Promise<void> {
  const [name, rest] = subcommand("keys", args, ["create", "list", "revoke"]);
  if (name === "create") return create(rest);
  if (name === "list") return list(rest);
  return revoke(rest);
}

async function create(args: string[]): Promise<void> {
  const { values, positionals } = usageErrors(() =>
    parseArgs({
      args,
      options: {
        credits: { type: "string" },
        name: { type: "string" },
        account: { type: "string" },
        limit: { type: "string" },
        per: { type: "string" },
        expires: { type: "string" },
      },
      allowPositionals: true,
    }),
  );
  expectPositionals(positionals, []);
  if (values.account !== undefined && values.credits !== undefined) {
    throw new UsageError("--credits applies only to a new account; use credits grant for an existing one");
  }
  const credits = values.credits === undefined ? undefined : parseCount(values.credits, "--credits", 0);
  const name = values.name ?? "cli";
  const parsed = parseKeyOptions(values, Date.now());
  if ("error" in parsed) throw new UsageError(parsed.error);
  const { options } = parsed;

  const { account, key: created } = await withOperator(async ({ accounts }) => {
    if (values.account === undefined) return accounts.openAccount(name, credits, options);
    const account = await accounts.account(values.account);
    if (!account) throw new LedgerError("unknown_account", `no account ${values.account}`);
    return { account, key: await accounts.createKey(account.id, name, options) };
  });
  const { keyId, prefix, key } = created;
  const limit = options.limit ? `  limit ${describeKeyLimit(options.limit)}` : "";
  const expires = options.expiresAt === undefined ? "" : `  expires ${formatTime(options.expiresAt)}`;
  console.error(`account  ${account.id}  ${JSON.stringify(account.name)}  ${account.balance} credits`);
  console.error(`key      ${keyId}  ${prefix}…${limit}${expires}  shown once below: store it now`);
  console.log(key);
}

async function list(args: string[]): Promise<void> {
  const { values, positionals } = usageErrors(() =>
    parseArgs({ args, options: { account: { type: "string" } }, allowPositionals: true }),
  );
  expectPositionals(positionals, []);
  const keys = await withOperator(({ accounts }) => accounts.listKeys(values.account));
  if (keys.length === 0) {
    console.error("no keys");
    return;
  }
  const header = ["KEY ID", "ACCOUNT", "NAME", "PREFIX", "CREATED", "LAST USED", "REVOKED", "LIMIT", "EXPIRES"];
  const rows = keys.map((key) => [
    key.id,
    key.accountId,
    key.name,
    `${key.prefix}…`,
    formatTime(key.createdAt),
    formatTime(key.lastUsedAt),
    formatTime(key.revokedAt),
    describeAllowance(key.allowance),
    formatTime(key.expiresAt),
  ]);
  console.log(formatTable([header, ...rows]));
}

async function revoke(args: string[]): Promise<void> {
  const { positionals } = usageErrors(() => parseArgs({ args, options: {}, allowPositionals: true }));
  const [reference = ""] = expectPositionals(positionals, ["KEY|KEY_ID|PREFIX"]);
  const key = await withOperator(({ accounts }) => accounts.revokeKey(reference));
  console.log(`revoked ${key.id} (${key.prefix}…) of ${key.accountId} at ${formatTime(key.revokedAt)}`);
}
