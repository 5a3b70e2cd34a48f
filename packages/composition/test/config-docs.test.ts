// docs/configuration.md and the README's configuration list against the table of variables: every
// variable documented, with its default and the programs that read it, and nothing documented that no
// program reads.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type Program, shownDefault, VARIABLES, type Variable } from "../src/index.ts";

const ROOT = join(import.meta.dir, "../../..");
const GUIDE = readFileSync(join(ROOT, "docs/configuration.md"), "utf8");
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const TABLE = VARIABLES as Record<string, Variable>;

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();
const namesIn = (text: string) => [...text.matchAll(/`([A-Za-z_]+)`/g)].map((match) => match[1] as string);

/** The guide's entries, `**`NAME`** (default …)`, by name: the name and what follows "default". */
function guideEntries(): { name: string; shown: string }[] {
  return [...GUIDE.matchAll(/\*\*`([A-Za-z_]+)`\*\*\s+\(default\s+([^)]*)\)/g)]
    .map((match) => ({ name: match[1] as string, shown: oneLine(match[2] as string) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The names the guide's "who reads what" item for `command` lists. */
function whoReads(command: string): string[] {
  const item = GUIDE.split(/\n(?=- |\n)/).find((block) => block.startsWith(`- \`${command}\``));
  if (item === undefined) throw new Error(`docs/configuration.md has no item for ${command}`);
  return namesIn(item.slice(command.length + 4)).sort();
}

/** The table's default for `name` as the docs show it. */
function shownFor(name: string): string {
  const variable = TABLE[name];
  return variable ? shownDefault(variable) : "(not in the table)";
}

const readBy = (program: Program) =>
  Object.keys(TABLE)
    .filter((name) => TABLE[name]?.programs.includes(program))
    .sort();

describe("docs/configuration.md", () => {
  test("documents every variable of the table once, with its default, and no other", () => {
    const table = Object.keys(TABLE).sort((a, b) => a.localeCompare(b));
    expect(guideEntries()).toEqual(table.map((name) => ({ name, shown: shownFor(name) })));
  });

  test("says which programs read which variables as the table does", () => {
    const serverSkips = Object.keys(TABLE).filter((name) => !TABLE[name]?.programs.includes("server"));
    expect(whoReads("npm start")).toEqual(serverSkips.sort());
    expect(whoReads("npm run mcp")).toEqual(readBy("mcp"));
    expect(whoReads("npm run admin")).toEqual(readBy("admin"));
  });
});

describe("the README's configuration list", () => {
  test("names only variables of the table, each with the table's default", () => {
    const section = README.slice(
      README.indexOf("## Configuration"),
      README.indexOf("\n## ", README.indexOf("## Configuration") + 1),
    );
    const items = [...section.matchAll(/^- ((?:`[A-Za-z_]+`(?:, )?)+) \(([^)]*)\):/gm)];
    expect(items.length).toBeGreaterThan(0);
    for (const [, names, shown] of items) {
      const defaults = namesIn(names as string).map(shownFor);
      // Names that share a default show it once.
      const expected = defaults.every((value) => value === defaults[0]) ? defaults[0] : defaults.join(", ");
      expect({ names, shown }).toEqual({ names, shown: expected });
    }
  });
});
