// DATABASE_URL as it may be shown to people (start-up banner, CLI confirmations, error messages): the
// adapter and where the database is, never the password a postgres:// URL may carry.
import { parseDatabaseUrl } from "@social/core";

export function describeDatabase(url: string): string {
  const location = parseDatabaseUrl(url);
  switch (location.kind) {
    case "sqlite":
      return `SQLite ${location.path}`;
    case "postgres": {
      const { hostname, port, pathname } = new URL(location.url);
      return `PostgreSQL ${hostname}:${port || "5432"}/${decodeURIComponent(pathname.slice(1))}`;
    }
    default:
      return location satisfies never;
  }
}
