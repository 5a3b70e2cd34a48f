// `remove tweets ID…` and `remove users ID…`: takes posts or accounts out of the world DATABASE_URL
// names, with what depends on them (core's ports/world-removal.ts says what), in one transaction a
// running server sees whole or not at all. It prints the ids removed, those the world does not hold
// (not an error), the rows that went with them and what the world is after.
import { parseArgs } from "node:util";
import { REMOVAL_KINDS, type Removal, removableId } from "@social/core";
import { subcommand, UsageError, usageErrors } from "../cli.ts";
import { withOperator } from "../database.ts";
import { formatCount, formatTable, formatWorld } from "../format.ts";

export async function removeCommand(args: readonly string[]): Promise<void> {
  const [kind, rest] = subcommand("remove", args, REMOVAL_KINDS);
  const { positionals } = usageErrors(() => parseArgs({ args: rest, options: {}, allowPositionals: true }));
  if (positionals.length === 0) throw new UsageError(`remove ${kind} needs at least one ID`);
  const ids = positionals.map((text) => {
    const id = removableId(text);
    if (id === undefined) throw new UsageError(`${JSON.stringify(text)} is not an id (digits, a 64-bit integer)`);
    return id;
  });
  const removal = await withOperator((operator) => operator.worldRemoval().remove(kind, ids));
  printRemoval(removal);
}

function printRemoval(removal: Removal): void {
  const { kind, removed, notFound, rows } = removal;
  console.log(
    removed.length === 0
      ? `removed no ${kind}`
      : `removed ${formatCount(removed.length)} ${kind}: ${removed.join(" ")}`,
  );
  if (notFound.length > 0) console.log(`not found (nothing to remove): ${notFound.join(" ")}`);
  const deleted = Object.entries(rows).filter(([, count]) => count > 0);
  if (deleted.length > 0) {
    console.log(formatTable([["rows", "removed"], ...deleted.map(([table, count]) => [table, formatCount(count)])]));
  }
  console.log(formatWorld(removal.world));
}
