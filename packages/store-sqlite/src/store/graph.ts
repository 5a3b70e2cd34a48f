// The follow graph: a user's followers and followings, as users or as ids, and whether two users follow
// each other.
import type { Database } from "bun:sqlite";
import {
  type GraphDirection,
  type IdPage,
  JsonText,
  type Page,
  type PageRequest,
  type Relationship,
  type User,
} from "@social/core";
import { type BoundKey, boundId, idKey, keysetAfter, type StoredId } from "@social/store-common";
import { userPage, usersNewestFirst } from "./reads.ts";
import type { UserReads } from "./users.ts";

type IdWalkParams = [user: StoredId, afterK1: BoundKey, afterK2: BoundKey, count: number];

/**
 * A keyset walk of ids (`walk` selects k1, k2 in page order, bound to ?1 the user and ?2, ?3 the
 * position) as two statements: `page`, the JSON of the next ?4 ids and their count; `tail`, the keys
 * at position ?4 and ?4 + 1. The aggregate takes the ordered subquery's rows in the order it yields
 * them (an ORDER BY inside json_group_array would sort them again, at 2.5 times the cost); the store
 * tests pin that order against a row-by-row walk.
 */
function idPageStatements(db: Database, walk: string) {
  return {
    page: db.query<{ ids: string; count: number }, IdWalkParams>(
      `SELECT json_group_array(json_object('id', k2)) AS ids, count(*) AS count
       FROM (${walk} LIMIT ?4)`,
    ),
    tail: db.query<{ k1: number; k2: string }, IdWalkParams>(`${walk} LIMIT 2 OFFSET ?4 - 1`),
  };
}

function statements(db: Database) {
  return {
    users: {
      followers: usersNewestFirst(db, "follows", "followee_id", "follower_id"),
      following: usersNewestFirst(db, "follows", "follower_id", "followee_id"),
    },
    verifiedUsers: {
      followers: usersNewestFirst(db, "follows", "followee_id", "follower_id", " AND r.follower_verified = 1"),
      following: usersNewestFirst(db, "follows", "follower_id", "followee_id", " AND r.followee_verified = 1"),
    },
    ids: {
      followers: idPageStatements(
        db,
        `SELECT created_ms AS k1, CAST(follower_id AS TEXT) AS k2 FROM follows WHERE followee_id = ?1 AND (created_ms, follower_id) < (?2, ?3)
         ORDER BY created_ms DESC, follower_id DESC`,
      ),
      following: idPageStatements(
        db,
        `SELECT created_ms AS k1, CAST(followee_id AS TEXT) AS k2 FROM follows WHERE follower_id = ?1 AND (created_ms, followee_id) < (?2, ?3)
         ORDER BY created_ms DESC, followee_id DESC`,
      ),
    },
    userIdByUsername: db.query<{ id: string; username: string }, [string]>(
      "SELECT CAST(id AS TEXT) AS id, username FROM users WHERE username = ? COLLATE NOCASE",
    ),
    follows: db.query<{ yes: number }, [StoredId, StoredId]>(
      "SELECT EXISTS (SELECT 1 FROM follows WHERE follower_id = ? AND followee_id = ?) AS yes",
    ),
  };
}

export class GraphReads {
  readonly #users: UserReads;
  readonly #q: ReturnType<typeof statements>;

  constructor(db: Database, users: UserReads) {
    this.#users = users;
    this.#q = statements(db);
  }

  users(userId: string, direction: GraphDirection, page: PageRequest, verifiedOnly = false): Page<User> | undefined {
    const id = this.#users.existingId(userId);
    if (id === undefined) return undefined;
    const walks = verifiedOnly ? this.#q.verifiedUsers : this.#q.users;
    return userPage(walks[direction], id, page);
  }

  /**
   * SQLite writes the page's JSON itself, so a page of 5,000 ids is one string, not 5,000 rows,
   * strings and objects. A full page then asks for the keys at its last position and the one after:
   * the cursor, and whether another page exists.
   */
  ids(userId: string, direction: GraphDirection, page: PageRequest): IdPage | undefined {
    const id = this.#users.existingId(userId);
    if (id === undefined) return undefined;
    const [k1, k2] = keysetAfter<[BoundKey, BoundKey]>(page.after, ["int", "id"]);
    const statements = this.#q.ids[direction];
    const { ids, count } = statements.page.get(id, k1, k2, page.size) ?? { ids: "[]", count: 0 };
    const result = { ids: new JsonText(ids), count };
    if (count < page.size) return result;
    const [last, after] = statements.tail.all(id, k1, k2, page.size);
    return last && after ? { ...result, next: [last.k1, idKey(last.k2)] } : result;
  }

  relationship(sourceUsername: string, targetUsername: string): Relationship | undefined {
    const source = this.#q.userIdByUsername.get(sourceUsername);
    const target = this.#q.userIdByUsername.get(targetUsername);
    if (source === null || target === null) return undefined;
    const follows = (follower: string, followee: string) =>
      this.#q.follows.get(boundId(follower), boundId(followee))?.yes === 1;
    return {
      source_user_id: source.id,
      source_username: source.username,
      target_user_id: target.id,
      target_username: target.username,
      following: follows(source.id, target.id),
      followed_by: follows(target.id, source.id),
    };
  }
}
