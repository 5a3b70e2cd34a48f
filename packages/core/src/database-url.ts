// DATABASE_URL names the database every port lives in, and so which adapter serves them: a file path,
// `file:` or `:memory:` is SQLite (the embedded default); `postgres://` or `postgresql://` is PostgreSQL.
// Any other scheme is refused at start, rather than taken for a path (a `postgres://` URL used to become
// a local folder named `postgres:` holding a new SQLite file).

export type DatabaseLocation = { kind: "sqlite"; path: string } | { kind: "postgres"; url: string };

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;

export function parseDatabaseUrl(url: string): DatabaseLocation {
  if (url === "") throw new Error("DATABASE_URL is empty");
  if (url === ":memory:") return { kind: "sqlite", path: url };
  const scheme = url.match(SCHEME)?.[1]?.toLowerCase();
  if (scheme === undefined) return { kind: "sqlite", path: url };
  if (scheme === "file") return { kind: "sqlite", path: url.slice("file:".length) };
  if (scheme === "postgres" || scheme === "postgresql") {
    if (!URL.canParse(url)) throw new Error("DATABASE_URL is not a valid postgres:// URL");
    return { kind: "postgres", url };
  }
  throw new Error(
    `DATABASE_URL has the scheme ${scheme}:, which no adapter serves: use a file path or file:… for SQLite, or postgres://user:password@host:port/database`,
  );
}
