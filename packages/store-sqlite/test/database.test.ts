import { Database } from "bun:sqlite";
import { describe, expect, it } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../src/database.ts";
import { persistentSecret } from "../src/settings.ts";

/** The permission bits of `path`, in octal. */
const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

function inTempDir(run: (root: string) => void): void {
  const root = mkdtempSync(join(tmpdir(), "open-database-"));
  try {
    run(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

describe("openDatabase", () => {
  it("creates the folders of a fresh checkout's default path, in WAL mode with the schema in place", () => {
    const root = mkdtempSync(join(tmpdir(), "open-database-"));
    try {
      const path = join(root, "data", "nested", "social.db");
      const db = openDatabase(`file:${path}`);
      expect(existsSync(path)).toBe(true);
      expect(db.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
      expect(db.query("SELECT COUNT(*) AS n FROM accounts").get()).toEqual({ n: 0 });
      db.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("keeps the database, its -wal and -shm, and the folders it creates to their owner", () => {
    inTempDir((root) => {
      const path = join(root, "data", "nested", "social.db");
      const db = openDatabase(path);
      persistentSecret(db, "token_secret");
      expect([join(root, "data"), join(root, "data", "nested")].map(mode)).toEqual(["700", "700"]);
      expect([path, `${path}-wal`, `${path}-shm`].map(mode)).toEqual(["600", "600", "600"]);
      db.close();
    });
  });

  it("tightens an existing database and the -wal and -shm left beside it, not the operator's folder", () => {
    inTempDir((root) => {
      const folder = join(root, "shared");
      mkdirSync(folder);
      chmodSync(folder, 0o755);
      const path = join(folder, "social.db");
      // A connection of an earlier version, still open, so its -wal and -shm exist.
      const earlier = new Database(path, { create: true });
      earlier.run("PRAGMA journal_mode = WAL");
      earlier.run("CREATE TABLE t (x)");
      for (const file of [path, `${path}-wal`, `${path}-shm`]) chmodSync(file, 0o644);
      const db = openDatabase(path);
      expect([path, `${path}-wal`, `${path}-shm`].map(mode)).toEqual(["600", "600", "600"]);
      expect(mode(folder)).toBe("755");
      db.close();
      earlier.close();
    });
  });

  it("fsyncs every commit unless told otherwise", () => {
    const db = openDatabase(":memory:");
    expect(db.query("PRAGMA synchronous").get()).toEqual({ synchronous: 2 });
    db.close();
  });
});
