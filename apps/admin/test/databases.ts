// What the operator CLI's import and remove tests share: the sample of X API v2 pages they import, and
// fresh databases of either adapter (SQLite files in a folder of the test file's own, PostgreSQL
// databases on a server of its own), the same test body running on both.
import { afterAll, beforeAll } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Backend, openBackend } from "@social/composition";
import { type PostgresServer, startPostgres } from "@social/store-postgres/testing";
import { REPO_ROOT } from "@social/testing";

export const SAMPLE = join(REPO_ROOT, "fixtures/import/sample-pages.jsonl");

export type Json = Record<string, unknown>;
export type SamplePage = { data: (Json & { id: string })[]; includes?: { users?: Json[]; tweets?: Json[] } };

/** The sample file's pages, as parsed JSON. */
export function samplePages(): SamplePage[] {
  return readFileSync(SAMPLE, "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as SamplePage);
}

export interface TestDatabases {
  /** The folder the test file's SQLite files (and any file it writes) go in. */
  readonly dir: string;
  /** A new, empty database of `adapter`, as a DATABASE_URL. */
  create(adapter: "sqlite" | "postgres"): Promise<string>;
}

/** Databases for one test file, named after `name`; removed, and the server stopped, after its tests. */
export function testDatabases(name: string): TestDatabases {
  let dir = "";
  let postgres: PostgresServer | undefined;
  let created = 0;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), `admin-${name}-`));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await postgres?.stop();
  });
  return {
    get dir() {
      return dir;
    },
    async create(adapter) {
      created++;
      if (adapter === "sqlite") return `file:${join(dir, `${name}-${created}.db`)}`;
      postgres ??= await startPostgres();
      return postgres.createDatabase(`${name}_${created}`);
    },
  };
}

/** `read` run on the database at `databaseUrl` as the servers open it, closed afterwards. */
export async function withStore<T>(databaseUrl: string, read: (backend: Backend) => Promise<T>): Promise<T> {
  const backend = await openBackend(databaseUrl, { max: 2 });
  try {
    return await read(backend);
  } finally {
    await backend.close();
  }
}
