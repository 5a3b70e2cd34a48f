// Server secrets that must survive restarts and be shared by every process on the database (the HTTP
// servers, the MCP stdio server): generated on first use and stored, as on SQLite
// (packages/store-sqlite/src/settings.ts). They never appear in logs.
import type { SQL } from "bun";

function randomSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * The stored secret called `name`, created atomically on first use: every process agrees on one. Two
 * statements, not one: an INSERT that loses the race to a concurrent one waits for it to commit, but a
 * SELECT in the same statement would still read the snapshot taken before that commit and find nothing.
 */
export async function persistentSecret(sql: SQL, name: string): Promise<string> {
  await sql`INSERT INTO settings (name, value) VALUES (${name}, ${randomSecret()}) ON CONFLICT (name) DO NOTHING`;
  const [row] = await sql<{ value: string }[]>`SELECT value FROM settings WHERE name = ${name}`;
  if (!row) throw new Error(`setting ${name} could not be stored`);
  return row.value;
}
