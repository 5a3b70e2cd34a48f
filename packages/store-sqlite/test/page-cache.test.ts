// Another worker's charge must not cost this worker a read() per page of the world it reads next
// (issue #34): SQLite drops a connection's page cache when another connection commits to the file, and
// the world shares the file with the ledger. Counted by the kernel (/proc/self/io syscr), not timed.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_WORLD } from "@social/fixtures";
import { openDatabase } from "../src/database.ts";
import { createAccount } from "../src/ledger/accounts.ts";
import { buildWorld } from "../src/world/build.ts";

/** read() calls this process has made so far. */
const readCalls = () => Number(/syscr:\s+(\d+)/.exec(readFileSync("/proc/self/io", "utf8"))?.[1]);

describe.skipIf(!existsSync("/proc/self/io"))("a worker's page cache and another worker's commits", () => {
  const dir = mkdtempSync(join(tmpdir(), "page-cache-"));
  const path = join(dir, "social.db");
  let tweetIds: number[] = [];

  beforeAll(() => {
    const builder = openDatabase(path);
    buildWorld(builder, DEFAULT_WORLD);
    builder.run("PRAGMA wal_checkpoint(TRUNCATE)");
    tweetIds = (builder.query("SELECT id FROM tweets ORDER BY random() LIMIT 200").all() as { id: number }[]).map(
      (row) => row.id,
    );
    builder.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads the world again without a read() per page after another connection commits a charge", () => {
    const reader = openDatabase(path);
    const writer = openDatabase(path);
    const tweet = reader.query("SELECT * FROM tweets WHERE id = ?");
    const readAll = () => {
      for (const id of tweetIds) expect(tweet.get(id)).not.toBeNull();
    };
    readAll();
    createAccount(writer, "another worker's customer", 100);
    const before = readCalls();
    readAll();
    // Without the memory map each page of the 200 tweets and their index would be read again.
    expect(readCalls() - before).toBeLessThan(10);
    reader.close();
    writer.close();
  });
});
