// The Store conformance suite (@social/conformance) on SQLite: the default world built into a database
// file of its own. `npm run snapshots` runs this file to rewrite the suite's committed answers.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { storeConformance } from "@social/conformance";
import { DEFAULT_WORLD } from "@social/fixtures";
import { buildWorld, openDatabase, SqliteStore } from "../src/index.ts";

storeConformance("SQLite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "store-conformance-"));
  const db = openDatabase(join(dir, "world.db"));
  buildWorld(db, DEFAULT_WORLD);
  return {
    store: new SqliteStore(db),
    async close() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
