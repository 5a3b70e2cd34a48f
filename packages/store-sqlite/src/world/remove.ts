// Removals from a SQLite world (core's WorldRemoval port): one IMMEDIATE transaction gathers the ids and
// what goes with them, forgets their search rows and those of the replies to a removed user (whose to:
// tag goes with the user), deletes the rows (@social/store-common world-removal.ts), indexes those replies
// again and settles the world's meta.
import type { Database } from "bun:sqlite";
import { noRemovedRows, type Removal, type RemovalKind, type WorldRemoval } from "@social/core";
import { DELETE_REMOVED, FORGET_REMOVED_MENTIONS, GATHER_REMOVED } from "@social/store-common";
import { settleWorld } from "./settle.ts";
import { TOUCHED, touchedTweets } from "./touched.ts";

const REMOVED_TABLES = ["removed_users", "removed_tweets"] as const;

export class SqliteWorldRemoval implements WorldRemoval {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async remove(kind: RemovalKind, ids: readonly string[]): Promise<Removal> {
    return this.#db.transaction(() => this.#remove(kind, ids)).immediate();
  }

  #remove(kind: RemovalKind, ids: readonly string[]): Removal {
    const db = this.#db;
    for (const table of REMOVED_TABLES) {
      db.run(`CREATE TEMP TABLE IF NOT EXISTS ${table} (id INTEGER PRIMARY KEY)`);
      db.run(`DELETE FROM temp.${table}`);
    }
    const asked = [...new Set(ids)];
    const exists = db.query<object, [bigint]>(`SELECT 1 FROM ${kind} WHERE id = ?`);
    const gather = db.query(`INSERT INTO temp.removed_${kind} (id) VALUES (?)`);
    const removed = asked.filter((id) => exists.get(BigInt(id)) !== null);
    for (const id of removed) gather.run(BigInt(id));
    for (const sql of GATHER_REMOVED) db.run(sql);

    const touched = touchedTweets(db);
    db.run(`INSERT OR IGNORE INTO ${TOUCHED} (id) SELECT id FROM temp.removed_tweets`);
    if (kind === "users") for (const id of removed) touched.touchRepliesTo.run(BigInt(id));
    touched.forget.run();
    const rows = noRemovedRows();
    for (const { rows: table, sql } of DELETE_REMOVED) rows[table] += db.run(sql).changes;
    for (const sql of FORGET_REMOVED_MENTIONS) db.run(sql);
    touched.index.run();
    touched.clear.run();

    const world = settleWorld(db, rows);
    const found = new Set(removed);
    return { kind, removed, notFound: asked.filter((id) => !found.has(id)), rows, world };
  }
}
