// The follow graph: a user's followers and followings, as users or as ids, and whether two users follow
// each other.

import {
  type GraphDirection,
  type IdPage,
  JsonText,
  type Page,
  type PageRequest,
  type Relationship,
  type User,
} from "@social/core";
import { type BoundKey, idKey, keysetAfter, type StoredId } from "@social/store-common";
import type { SQL } from "bun";
import { asciiFold } from "../world/rows.ts";
import { statement, userPage, usersNewestFirst } from "./reads.ts";
import type { UserReads } from "./users.ts";

type IdWalkParams = [user: StoredId, afterK1: BoundKey, afterK2: BoundKey, count: number];

/** BIGINT keys arrive as decimal strings. */
interface IdPageRow {
  ids: string;
  count: number;
  last_k1: string | null;
  last_k2: string | null;
  more: boolean;
}

/**
 * A keyset walk of ids (`walk` selects k1, k2 newest first, bound to $1 the user and $2, $3 the
 * position) as one statement: the JSON of the next $4 ids, their count, the keys of the last of them
 * and whether one more follows. PostgreSQL writes the JSON text the way SQLite's
 * json_group_array(json_object('id', …)) does, byte for byte ([{"id":"1"},{"id":"2"}]): json_agg would
 * put spaces and line breaks between the elements. Ids are digits, so nothing in them needs escaping.
 */
function idPageStatement(sql: SQL, walk: string) {
  return statement<IdPageRow, IdWalkParams>(
    sql,
    `WITH page AS (SELECT k1, k2, row_number() OVER (ORDER BY k1 DESC, k2 DESC) AS n FROM (${walk} LIMIT $4 + 1) w)
     SELECT '[' || coalesce(string_agg('{"id":"' || k2 || '"}', ',' ORDER BY n) FILTER (WHERE n <= $4), '') || ']'
              AS ids,
            (count(*) FILTER (WHERE n <= $4))::int AS count,
            max(k1) FILTER (WHERE n = $4) AS last_k1,
            max(k2) FILTER (WHERE n = $4) AS last_k2,
            count(*) > $4 AS more
     FROM page`,
  );
}

function statements(sql: SQL) {
  return {
    users: {
      followers: usersNewestFirst(sql, "follows", "followee_id", "follower_id"),
      following: usersNewestFirst(sql, "follows", "follower_id", "followee_id"),
    },
    verifiedUsers: {
      followers: usersNewestFirst(sql, "follows", "followee_id", "follower_id", " AND r.follower_verified"),
      following: usersNewestFirst(sql, "follows", "follower_id", "followee_id", " AND r.followee_verified"),
    },
    ids: {
      followers: idPageStatement(
        sql,
        `SELECT created_ms AS k1, follower_id AS k2 FROM follows
         WHERE followee_id = $1::bigint AND (created_ms, follower_id) < ($2::bigint, $3::bigint)
         ORDER BY created_ms DESC, follower_id DESC`,
      ),
      following: idPageStatement(
        sql,
        `SELECT created_ms AS k1, followee_id AS k2 FROM follows
         WHERE follower_id = $1::bigint AND (created_ms, followee_id) < ($2::bigint, $3::bigint)
         ORDER BY created_ms DESC, followee_id DESC`,
      ),
    },
    userIdByUsername: statement<{ id: string; username: string }, [key: string]>(
      sql,
      "SELECT id, username FROM users WHERE username_key = $1",
    ),
    follows: statement<object, [follower: string, followee: string]>(
      sql,
      "SELECT 1 FROM follows WHERE follower_id = $1::bigint AND followee_id = $2::bigint LIMIT 1",
    ),
  };
}

export class GraphReads {
  readonly #users: UserReads;
  readonly #q: ReturnType<typeof statements>;

  constructor(sql: SQL, users: UserReads) {
    this.#users = users;
    this.#q = statements(sql);
  }

  async users(
    userId: string,
    direction: GraphDirection,
    page: PageRequest,
    verifiedOnly = false,
  ): Promise<Page<User> | undefined> {
    const id = await this.#users.existingId(userId);
    if (id === undefined) return undefined;
    const walks = verifiedOnly ? this.#q.verifiedUsers : this.#q.users;
    return userPage(walks[direction], id, page);
  }

  /** The database writes the page's JSON itself, so a page of 5,000 ids is one string, not 5,000 rows. */
  async ids(userId: string, direction: GraphDirection, page: PageRequest): Promise<IdPage | undefined> {
    const id = await this.#users.existingId(userId);
    if (id === undefined) return undefined;
    const [k1, k2] = keysetAfter<[BoundKey, BoundKey]>(page.after, ["int", "id"]);
    const row = await this.#q.ids[direction].get(id, k1, k2, page.size);
    if (row === undefined) throw new Error("graph ids: the aggregate returned no row");
    const result = { ids: new JsonText(row.ids), count: row.count };
    return row.more && row.last_k1 !== null && row.last_k2 !== null
      ? { ...result, next: [Number(row.last_k1), idKey(row.last_k2)] }
      : result;
  }

  async relationship(sourceUsername: string, targetUsername: string): Promise<Relationship | undefined> {
    const [source, target] = await Promise.all([
      this.#q.userIdByUsername.get(asciiFold(sourceUsername)),
      this.#q.userIdByUsername.get(asciiFold(targetUsername)),
    ]);
    if (source === undefined || target === undefined) return undefined;
    const follows = async (follower: string, followee: string) =>
      (await this.#q.follows.get(follower, followee)) !== undefined;
    const [following, followedBy] = await Promise.all([follows(source.id, target.id), follows(target.id, source.id)]);
    return {
      source_user_id: source.id,
      source_username: source.username,
      target_user_id: target.id,
      target_username: target.username,
      following,
      followed_by: followedBy,
    };
  }
}
