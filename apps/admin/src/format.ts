// Plain-text output for a terminal: aligned columns, readable times and counts.
import type { ImportedWorld } from "@social/core";

export function formatTime(epochMs: number | null): string {
  return epochMs === null ? "-" : new Date(epochMs).toISOString().slice(0, 19).replace("T", " ");
}

/**
 * Control characters (C0, DEL, C1; Unicode's Cc) as `\xHH`. Cells hold what users typed, such as key
 * names, and an escape sequence printed raw would act on the operator's terminal instead of showing.
 */
function visible(cell: string): string {
  return cell.replace(/\p{Cc}/gu, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

/** Left-aligned columns separated by two spaces; the first row is the header. */
export function formatTable(cells: readonly (readonly string[])[]): string {
  const rows = cells.map((row) => row.map(visible));
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, column) => {
      widths[column] = Math.max(widths[column] ?? 0, cell.length);
    });
  }
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** A count as the operator reads it: 1,234,567. */
export function formatCount(value: number): string {
  return value.toLocaleString("en-US");
}

/** What the world is after an import or a removal, in one line. */
export function formatWorld(world: ImportedWorld): string {
  const trends = world.trends.length > 0 ? `trends ${world.trends.slice(0, 5).join(" ")}` : "no trends";
  return `world: ${formatCount(world.users)} users, ${formatCount(world.tweets)} tweets, clock ${world.clock}, ${trends}`;
}
