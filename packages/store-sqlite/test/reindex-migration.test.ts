// A world imported before late arrivals were handled (#36) could hold a reply indexed without the `to:`
// term its content view yields, an index that SQLite reports malformed once the reply changes. The
// world migration that indexes an imported world anew makes it agree with its content again.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { importSources } from "@social/core";
import { openDatabase } from "../src/database.ts";
import { SqliteWorldImport } from "../src/world/import.ts";
import { reindexImportedWorld, worldMigrations } from "../src/world/schema.ts";

const SAMPLE = new URL("../../../fixtures/import/sample-pages.jsonl", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "reindex-migration-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const integrityCheck = "INSERT INTO tweets_fts (tweets_fts, rank) VALUES ('integrity-check', 1)";

test("an imported world whose reply lacks its to: term in the index is indexed anew by its migration", async () => {
  expect(worldMigrations).toContain(reindexImportedWorld);
  const db = openDatabase(join(dir, "imported.db"));
  try {
    const lines = readFileSync(SAMPLE, "utf8").trimEnd().split("\n");
    const source = {
      name: SAMPLE,
      lines: async function* () {
        yield* lines;
      },
    };
    await importSources([source], new SqliteWorldImport(db), { format: "auto", strict: false });
    const firstPage = JSON.parse(lines[0] as string) as { data: { id: string }[] };
    const reply = firstPage.data[1]?.id as string;

    // The reply as the importer indexed it before: the same row without its `to:` term.
    const row = db
      .query<{ id: number; text: string; author: string; lang: string; flags: string }, [string]>(
        "SELECT id, text, author, lang, flags FROM tweet_search_content WHERE id = ?",
      )
      .get(reply);
    expect(row?.flags).toContain("tada_writes");
    const { id, text, author, lang, flags } = row as NonNullable<typeof row>;
    const values = [id, text, author, lang];
    db.run("INSERT INTO tweets_fts (tweets_fts, rowid, text, author, lang, flags) VALUES ('delete', ?, ?, ?, ?, ?)", [
      ...values,
      flags,
    ]);
    db.run("INSERT INTO tweets_fts (rowid, text, author, lang, flags) VALUES (?, ?, ?, ?, ?)", [
      ...values,
      flags.replace(/ ?tada_writes/, ""),
    ]);
    expect(() => db.run(integrityCheck)).toThrow();

    db.transaction(() => reindexImportedWorld(db)).immediate();
    db.run(integrityCheck);
    const found = db
      .query<{ id: string }, []>(
        "SELECT CAST(rowid AS TEXT) AS id FROM tweets_fts WHERE tweets_fts MATCH 'flags : tada_writes'",
      )
      .all();
    expect(found.map((hit) => hit.id)).toEqual([reply]);
  } finally {
    db.close();
  }
});
