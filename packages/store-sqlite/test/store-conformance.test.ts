// The Store conformance suite (@social/conformance) on SQLite: the default world built into a database
// file of its own. `npm run snapshots` runs this file to rewrite the suite's committed answers.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SEARCH_ORACLE_LIMITS, storeConformance } from "@social/conformance";
import { DEFAULT_WORLD } from "@social/fixtures";
import { buildWorld, openDatabase, SqliteStore } from "../src/index.ts";

storeConformance("SQLite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "store-conformance-"));
  const db = openDatabase(join(dir, "world.db"));
  buildWorld(db, DEFAULT_WORLD);
  return {
    // The search oracle's budgets: a busy machine must not turn an answer the suite checks into a refusal.
    store: new SqliteStore(db, { search: SEARCH_ORACLE_LIMITS }),
    async close() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
