// DATABASE_URL → the adapter that serves it (parseDatabaseUrl in core decides, and refuses schemes no
// adapter serves). Opening migrates on both: SQLite at open, PostgreSQL under its advisory lock.
import { parseDatabaseUrl } from "@social/core";
import type { Backend, BackendOptions } from "./backend.ts";
import { openPostgresBackend } from "./postgres.ts";
import { openSqliteBackend } from "./sqlite.ts";

export async function openBackend(url: string, options: BackendOptions = {}): Promise<Backend> {
  const location = parseDatabaseUrl(url);
  switch (location.kind) {
    case "sqlite":
      return openSqliteBackend(url, options);
    case "postgres":
      return openPostgresBackend(location.url, options);
    default:
      return location satisfies never;
  }
}
