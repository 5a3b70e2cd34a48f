// The operator CLI: `bun run admin <command>`. Every command validates its whole command line before it
// opens the database, so a mistake (exit 2) writes nothing.
import { ApiError, LedgerError } from "@social/core";
import { CommandError, USAGE, UsageError } from "./cli.ts";
import { creditsCommand } from "./commands/credits.ts";
import { dbCommand } from "./commands/db.ts";
import { fixturesCommand } from "./commands/fixtures.ts";
import { importCommand } from "./commands/import.ts";
import { keysCommand } from "./commands/keys.ts";
import { removeCommand } from "./commands/remove.ts";
import { usageCommand } from "./commands/usage.ts";

const commands = new Map<string, (args: readonly string[]) => Promise<void>>([
  ["keys", keysCommand],
  ["credits", creditsCommand],
  ["usage", usageCommand],
  ["fixtures", fixturesCommand],
  ["import", importCommand],
  ["remove", removeCommand],
  ["db", dbCommand],
]);

async function main(argv: readonly string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === "help" || name === "--help" || name === "-h") {
    process.stdout.write(USAGE);
    return 0;
  }
  try {
    const command = name === undefined ? undefined : commands.get(name);
    if (!command) throw new UsageError(name === undefined ? "missing command" : `unknown command ${name}`);
    await command(args);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`error: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    // ApiError: the database is unavailable (the adapter says so); the operator gets the sentence, not a stack.
    if (error instanceof CommandError || error instanceof LedgerError || error instanceof ApiError) {
      process.stderr.write(`error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

process.exitCode = await main(process.argv.slice(2));
