// Plain-text output for a terminal: aligned columns and readable times.

export function formatTime(epochMs: number | null): string {
  return epochMs === null ? "-" : new Date(epochMs).toISOString().slice(0, 19).replace("T", " ");
}

/** Left-aligned columns separated by two spaces; the first row is the header. */
export function formatTable(rows: readonly (readonly string[])[]): string {
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
