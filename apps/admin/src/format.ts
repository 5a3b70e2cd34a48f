// Plain-text output for a terminal: aligned columns and readable times.

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
