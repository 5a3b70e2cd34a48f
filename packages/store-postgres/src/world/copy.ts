// COPY … FROM STDIN in PostgreSQL's text format, through Bun.sql's query.writable() (Bun 1.3.x and on):
// the fastest way rows reach a table, with no parameter limit per statement.

/** A value as COPY's text format writes it: \N for null, and the characters that frame rows escaped. */
function copyField(value: unknown): string {
  if (value === null || value === undefined) return "\\N";
  if (typeof value === "boolean") return value ? "t" : "f";
  return String(value).replace(/[\\\t\n\r]/g, (char) =>
    char === "\\" ? "\\\\" : char === "\t" ? "\\t" : char === "\n" ? "\\n" : "\\r",
  );
}

/** Rows per chunk written to the stream: a chunk is one string in memory. */
const CHUNK_ROWS = 1000;

export async function copyRows(
  tx: import("bun").TransactionSQL,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
): Promise<void> {
  const query = tx.unsafe(`COPY ${table} (${columns.join(", ")}) FROM STDIN`);
  const writer = query.writable().getWriter();
  for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
    let chunk = "";
    for (const row of rows.slice(start, start + CHUNK_ROWS)) chunk += `${row.map(copyField).join("\t")}\n`;
    await writer.write(chunk);
  }
  await writer.close();
  await query;
}
