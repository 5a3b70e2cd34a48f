// Removals from a PostgreSQL world (core's WorldRemoval port): one transaction, under the world's write
// lock, gathers the ids and what goes with them into temporary tables, deletes the rows (@social/store-common
// world-removal.ts; the GIN index follows its rows), takes the to: tag of a removed user out of the
// replies to them, as SQLite's index loses it with the user, and settles the world's meta.
import { noRemovedRows, type Removal, type RemovalKind, type WorldRemoval } from "@social/core";
import { DELETE_REMOVED, FORGET_REMOVED_MENTIONS, GATHER_REMOVED, replyTag } from "@social/store-common";
import type { SQL } from "bun";
import { tagLexemeText } from "../search/lexemes.ts";
import { settleWorld, WORLD_WRITE_LOCK } from "./settle.ts";

export class PostgresWorldRemoval implements WorldRemoval {
  readonly #sql: SQL;

  constructor(sql: SQL) {
    this.#sql = sql;
  }

  async remove(kind: RemovalKind, ids: readonly string[]): Promise<Removal> {
    const asked = [...new Set(ids)];
    return this.#sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${WORLD_WRITE_LOCK})`;
      await tx`CREATE TEMP TABLE removed_users (id BIGINT PRIMARY KEY) ON COMMIT DROP`;
      await tx`CREATE TEMP TABLE removed_tweets (id BIGINT PRIMARY KEY) ON COMMIT DROP`;
      const found = await tx<{ id: string; username: string | null }[]>`
        SELECT id::text AS id, ${tx.unsafe(kind === "users" ? "username" : "NULL::text")} AS username
        FROM ${tx(kind)} WHERE id = ANY(${tx.array(asked, "TEXT")}::bigint[])`;
      const foundIds = tx.array(
        found.map(({ id }) => id),
        "TEXT",
      );
      await tx`INSERT INTO ${tx(`removed_${kind}`)} (id) SELECT unnest(${foundIds}::bigint[])`;
      for (const sql of GATHER_REMOVED) await tx.unsafe(sql);
      const rows = noRemovedRows();
      for (const { rows: table, sql } of DELETE_REMOVED) rows[table] += (await tx.unsafe(sql)).count;
      for (const sql of FORGET_REMOVED_MENTIONS) await tx.unsafe(sql);

      const replyTags = found.flatMap(({ id, username }) => {
        const tag = username === null ? undefined : replyTag(username);
        return tag === undefined ? [] : [{ id, lexeme: tagLexemeText(tag) }];
      });
      if (replyTags.length > 0) {
        const userIds = tx.array(
          replyTags.map(({ id }) => id),
          "TEXT",
        );
        const lexemes = tx.array(
          replyTags.map(({ lexeme }) => lexeme),
          "TEXT",
        );
        // Replies name their user in the JSON only, which the index tweets_reply_to_user keys them by.
        await tx`UPDATE tweets t SET search_vector = ts_delete(t.search_vector, r.lexeme)
                 FROM unnest(${userIds}::text[], ${lexemes}::text[]) AS r(user_id, lexeme)
                 WHERE t.is_reply AND (t.extra::json ->> 'in_reply_to_user_id') = r.user_id`;
      }

      const world = await settleWorld(tx, rows);
      const gone = new Set(found.map(({ id }) => id));
      return {
        kind,
        removed: asked.filter((id) => gone.has(id)),
        notFound: asked.filter((id) => !gone.has(id)),
        rows,
        world,
      };
    });
  }
}
