// DATABASE_URL names the database every port lives in, and so which adapter serves them: a file path,
// `file:` or `:memory:` is SQLite (the embedded default); `postgres://` or `postgresql://` is PostgreSQL.
// Any other scheme is refused at start, rather than taken for a path (a `postgres://` URL used to become
// a local folder named `postgres:` holding a new SQLite file).

export type DatabaseLocation = { kind: "sqlite"; path: string } | { kind: "postgres"; url: string };

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;

const POSTGRES_FORM = "postgres://user:password@host:port/database";

/**
 * A postgres:// URL the client can open, or the error naming what is wrong with it. Checked here because
 * the client's own failures name neither the variable nor the part ("URI error" for a bad escape, a
 * missing host taken for localhost), and the operator must not see the password in either.
 */
function checkedPostgresUrl(url: string): string {
  if (!URL.canParse(url)) throw new Error(`DATABASE_URL is not a valid postgres:// URL: write ${POSTGRES_FORM}`);
  const parsed = new URL(url);
  if (parsed.hostname === "") throw new Error(`DATABASE_URL names no host: write ${POSTGRES_FORM}`);
  const parts = { "user name": parsed.username, password: parsed.password, "database name": parsed.pathname.slice(1) };
  for (const [part, text] of Object.entries(parts)) {
    try {
      decodeURIComponent(text);
    } catch {
      throw new Error(`DATABASE_URL's ${part} holds a % that starts no escape (%XX): write a literal % as %25`);
    }
  }
  return url;
}

export function parseDatabaseUrl(url: string): DatabaseLocation {
  if (url === "") throw new Error("DATABASE_URL is empty");
  if (url === ":memory:") return { kind: "sqlite", path: url };
  const scheme = url.match(SCHEME)?.[1]?.toLowerCase();
  if (scheme === undefined) return { kind: "sqlite", path: url };
  if (scheme === "file") return { kind: "sqlite", path: url.slice("file:".length) };
  if (scheme === "postgres" || scheme === "postgresql") return { kind: "postgres", url: checkedPostgresUrl(url) };
  throw new Error(
    `DATABASE_URL has the scheme ${scheme}:, which no adapter serves: use a file path or file:… for SQLite, or postgres://user:password@host:port/database`,
  );
}
