// A SQLite world imported before late arrivals were handled (#36) could hold a reply indexed without
// the `to:` term its content view yields, an index that SQLite then reports malformed when the reply
// changes. Opening such a world indexes it anew, once: the index agrees with its content again and
// `to:` finds the reply.
import { expect, test } from "bun:test";
import { openDatabase } from "@social/store-sqlite";
import { runAdmin } from "@social/testing";
import { type Json, SAMPLE, samplePages, testDatabases } from "./databases.ts";

const databases = testDatabases("reindex");
const replyToAda = samplePages()[0]?.data[1] as Json & { id: string };

test("a world imported with a reply's to: term missing from its index is indexed anew when opened", async () => {
  const url = await databases.create("sqlite");
  expect((await runAdmin(url, ["import", SAMPLE])).code).toBe(0);

  // The reply as the importer indexed it before: the same row without its `to:` term.
  const db = openDatabase(url);
  const row = db
    .query<{ id: number; text: string; author: string; lang: string; flags: string }, [string]>(
      "SELECT id, text, author, lang, flags FROM tweet_search_content WHERE id = ?",
    )
    .get(replyToAda.id);
  expect(row?.flags).toContain("tada_writes");
  const { id, text, author, lang, flags } = row as NonNullable<typeof row>;
  db.run("INSERT INTO tweets_fts (tweets_fts, rowid, text, author, lang, flags) VALUES ('delete', ?, ?, ?, ?, ?)", [
    id,
    text,
    author,
    lang,
    flags,
  ]);
  db.run("INSERT INTO tweets_fts (rowid, text, author, lang, flags) VALUES (?, ?, ?, ?, ?)", [
    id,
    text,
    author,
    lang,
    flags.replace(/ ?tada_writes/, ""),
  ]);
  expect(() => db.run("INSERT INTO tweets_fts (tweets_fts, rank) VALUES ('integrity-check', 1)")).toThrow();
  // As the database stood before the migration that indexes imported worlds anew.
  db.run("UPDATE schema_migrations SET version = version - 1 WHERE component = 'world'");
  db.close();

  const reopened = openDatabase(url);
  try {
    reopened.run("INSERT INTO tweets_fts (tweets_fts, rank) VALUES ('integrity-check', 1)");
    const found = reopened
      .query<{ id: string }, []>(
        "SELECT CAST(rowid AS TEXT) AS id FROM tweets_fts WHERE tweets_fts MATCH 'flags : tada_writes'",
      )
      .all();
    expect(found.map((hit) => hit.id)).toEqual([replyToAda.id]);
  } finally {
    reopened.close();
  }
});
