import { describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, synchronousFrom } from "../src/database.ts";

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

  it("fsyncs every commit unless told otherwise, and refuses an unknown mode", () => {
    const db = openDatabase(":memory:");
    expect(db.query("PRAGMA synchronous").get()).toEqual({ synchronous: 2 });
    db.close();
    expect(synchronousFrom(undefined)).toBe("FULL");
    expect(synchronousFrom("normal")).toBe("NORMAL");
    expect(() => synchronousFrom("OFF")).toThrow("SQLITE_SYNCHRONOUS");
  });
});
