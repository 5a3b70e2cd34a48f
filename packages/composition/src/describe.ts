// DATABASE_URL as it may be shown to people (start-up banner, CLI confirmations, error messages): the
// adapter and where the database is, never the password a postgres:// URL may carry.
import { parseDatabaseUrl } from "@social/core";

export function describeDatabase(url: string): string {
  const location = parseDatabaseUrl(url);
  if (location.kind === "sqlite") return `SQLite ${location.path}`;
  const { hostname, port, pathname } = new URL(location.url);
  return `PostgreSQL ${hostname}:${port || "5432"}/${decodeURIComponent(pathname.slice(1))}`;
}
