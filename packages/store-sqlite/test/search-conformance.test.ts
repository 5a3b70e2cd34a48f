// The search oracle (@social/conformance) on SQLite: each random world in a fresh in-memory database.
import { SEARCH_ORACLE_LIMITS, searchConformance } from "@social/conformance";
import { openDatabase, SqliteStore, WorldWriter } from "../src/index.ts";

searchConformance("SQLite", async ({ meta, records }) => {
  const db = openDatabase(":memory:");
  const writer = new WorldWriter(db);
  writer.begin(meta);
  writer.write(records);
  writer.end();
  const world = db.query("SELECT ids_follow_time FROM world_meta").get() as { ids_follow_time: number };
  return {
    // Windows that start at two tweets and shrink at every step make a search cross many windows even
    // in a world of thirty tweets.
    store: new SqliteStore(db, { search: { ...SEARCH_ORACLE_LIMITS, firstWindow: 2, stepMs: 0 } }),
    idsFollowTime: world.ids_follow_time === 1,
    close: async () => db.close(),
  };
});
