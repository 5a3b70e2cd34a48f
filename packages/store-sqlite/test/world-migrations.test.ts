// A world built before a migration is brought up to date when its database is opened, and ends up as
// a fresh build of the same world would be.
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_WORLD } from "@social/fixtures";
import { openDatabase } from "../src/database.ts";
import { migrate } from "../src/migrate.ts";
import { buildWorld } from "../src/world/build.ts";
import { worldMigrations } from "../src/world/schema.ts";
import { collectWorld, isVisible } from "./world-helpers.ts";

const BUILD_TIMEOUT = 60_000;

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "world-migrations-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function opened(db: Database): Database {
  cleanups.unshift(() => db.close());
  return db;
}

/**
 * The users and tweets of `builtPath` in a new database at the first world schema, with the search
 * index filled from that schema's content view, which held every tweet: what a build made back then.
 */
function firstSchemaCopy(builtPath: string, path: string): void {
  const db = new Database(path, { create: true, strict: true });
  migrate(db, "world", worldMigrations.slice(0, 1));
  const columns = (db.query("SELECT name FROM pragma_table_info('tweets')").all() as { name: string }[])
    .map((column) => column.name)
    .join(", ");
  db.run("ATTACH ? AS built", [builtPath]);
  db.run("INSERT INTO main.users SELECT * FROM built.users");
  db.run(`INSERT INTO main.tweets (${columns}) SELECT ${columns} FROM built.tweets`);
  db.run("DETACH built");
  db.run("INSERT INTO tweets_fts (tweets_fts) VALUES ('rebuild')");
  db.close();
}

const ranked = (db: Database, query: string) =>
  db
    .query("SELECT rowid, bm25(tweets_fts) AS score FROM tweets_fts WHERE tweets_fts MATCH ? ORDER BY rowid")
    .all(query);

describe("world migrations", () => {
  test(
    "protected authors leave the search index, X's search tags enter it, mentions are indexed, as in a fresh build",
    () => {
      const dir = tempDir();
      const builtPath = join(dir, "built.db");
      const built = opened(openDatabase(builtPath));
      buildWorld(built, DEFAULT_WORLD);
      const oldPath = join(dir, "old.db");
      firstSchemaCopy(builtPath, oldPath);
      const truth = collectWorld(DEFAULT_WORLD);
      const before = new Database(oldPath, { strict: true });
      const indexed = (db: Database) =>
        (db.query("SELECT id FROM tweets_fts_docsize ORDER BY id").all() as { id: number }[]).map((row) =>
          String(row.id),
        );
      expect(indexed(before)).toEqual(truth.tweets.map((tweet) => tweet.id));
      before.close();

      const migrated = opened(openDatabase(oldPath));
      expect(migrated.query("SELECT version FROM schema_migrations WHERE component = 'world'").get()).toEqual({
        version: worldMigrations.length,
      });
      const flags = "SELECT id, author_protected FROM tweets ORDER BY id";
      expect(migrated.query(flags).all()).toEqual(built.query(flags).all());
      const visible = truth.tweets.filter((tweet) => isVisible(truth, tweet)).map((tweet) => tweet.id);
      expect(visible.length).toBeLessThan(truth.tweets.length);
      expect(indexed(migrated)).toEqual(visible);
      migrated.run("INSERT INTO tweets_fts (tweets_fts) VALUES ('integrity-check')");
      // Deleting with the values once indexed leaves the term statistics bm25 reads as a build would.
      // The search tags of X's operators (is:, has:, conversation_id:, to:) are indexed as a build indexes them.
      const tags = ["flags : replies", "flags : retweets", "flags : verified OR flags : media", "flags : hashtags"];
      for (const query of ["coffee", "coffee OR the", ...tags]) {
        expect(ranked(migrated, query)).toEqual(ranked(built, query));
      }
      expect(ranked(migrated, "flags : retweets").length).toBeGreaterThan(0);
      // The mentions index holds what a build writes.
      const mentions = "SELECT tweet_id, user_id FROM tweet_mentions ORDER BY tweet_id, user_id";
      expect(built.query(mentions).all().length).toBeGreaterThan(100);
      expect(migrated.query(mentions).all()).toEqual(built.query(mentions).all());
    },
    BUILD_TIMEOUT,
  );
});
