import { Database } from "bun:sqlite";
import { describe, expect, it } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../src/database.ts";
import { databaseFiles, ledgerPathOf } from "../src/ledger-file.ts";
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

  it("keeps the database, its ledger file, their -wal and -shm, and the folders it creates to their owner", () => {
    inTempDir((root) => {
      const path = join(root, "data", "nested", "social.db");
      const db = openDatabase(path);
      persistentSecret(db, "token_secret");
      expect([join(root, "data"), join(root, "data", "nested")].map(mode)).toEqual(["700", "700"]);
      expect(databaseFiles(path).map(mode)).toEqual(["600", "600", "600", "600", "600", "600"]);
      db.close();
    });
  });

  it("tightens an existing database and the -wal and -shm left beside it, not the operator's folder", () => {
    inTempDir((root) => {
      const folder = join(root, "shared");
      mkdirSync(folder);
      chmodSync(folder, 0o755);
      const path = join(folder, "social.db");
      // Connections of an earlier version, still open, so the -wal and -shm exist.
      const earlier = [path, ledgerPathOf(path)].map((file, n) => {
        const connection = new Database(file, { create: true });
        connection.run("PRAGMA journal_mode = WAL");
        connection.run(`CREATE TABLE earlier_${n} (x)`);
        return connection;
      });
      for (const file of databaseFiles(path)) chmodSync(file, 0o644);
      const db = openDatabase(path);
      expect(databaseFiles(path).map(mode)).toEqual(["600", "600", "600", "600", "600", "600"]);
      expect(mode(folder)).toBe("755");
      db.close();
      for (const connection of earlier) connection.close();
    });
  });

  it("fsyncs every commit of both files unless told otherwise", () => {
    const memory = openDatabase(":memory:");
    expect(memory.query("PRAGMA synchronous").get()).toEqual({ synchronous: 2 });
    memory.close();
    inTempDir((root) => {
      const db = openDatabase(join(root, "social.db"));
      expect(db.query("PRAGMA main.synchronous").get()).toEqual({ synchronous: 2 });
      expect(db.query("PRAGMA ledger.synchronous").get()).toEqual({ synchronous: 2 });
      db.close();
      const normal = openDatabase(join(root, "social.db"), { synchronous: "NORMAL" });
      expect(normal.query("PRAGMA main.synchronous").get()).toEqual({ synchronous: 1 });
      expect(normal.query("PRAGMA ledger.synchronous").get()).toEqual({ synchronous: 1 });
      normal.close();
    });
  });
});
