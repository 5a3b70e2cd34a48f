// What the reads of every resource share. Every paginated read is a keyset walk of one index: the
// cursor holds the sort key of the last row returned, each page asks for one row more than it returns
// to learn whether another page exists, and so the thousandth page costs what the first one does.
import type { Database, Statement } from "bun:sqlite";
import type { Page, PageRequest, Tweet, User } from "@social/core";
import {
  type BoundKey,
  closedRange,
  idKey,
  keysetAfter,
  pageOf,
  type StoredId,
  storedId,
  TWEET_COLUMNS,
  tweetFromRow,
  USER_COLUMNS,
  type UserRow,
  userFromRow,
} from "@social/store-common";
import { type TweetRow, VISIBLE } from "../world/rows.ts";

export { pageOf } from "@social/store-common";

// A tweet walk's cursor is its last row's id; a user walk's is its last row's (k1, k2): the time of the
// relation and the user's id, as text.
type KeyedUserRow = UserRow & { k1: number; k2: string };

export type TweetWalkParams = [parent: StoredId, afterId: BoundKey, limit: number];
type UserWalkParams = [parent: StoredId, afterK1: BoundKey, afterK2: BoundKey, limit: number];
type TweetWalk = Statement<TweetRow, TweetWalkParams>;
export type UserWalk = Statement<KeyedUserRow, UserWalkParams>;

/** The row `byId` finds for the model id `id`; undefined when `id` is no stored id or names no row. */
export function rowById<Row>(byId: Statement<Row, [StoredId]>, id: string): Row | undefined {
  const stored = storedId(id);
  return (stored === undefined ? null : byId.get(stored)) ?? undefined;
}

/** What `byId` finds for `ids` as `item`s, in the order of `ids`; ids it finds nothing for are left out. */
export function itemsByIds<Row, Item>(
  byId: Statement<Row, [StoredId]>,
  ids: readonly string[],
  item: (row: Row) => Item,
): Item[] {
  return ids.flatMap((id) => {
    const row = rowById(byId, id);
    return row === undefined ? [] : [item(row)];
  });
}

/** `id` as stored when `exists` finds it: the parent of a page, which is a 404 when missing. */
export function existingId(exists: Statement<object, [StoredId]>, id: string): StoredId | undefined {
  const stored = storedId(id);
  return stored !== undefined && exists.get(stored) !== null ? stored : undefined;
}

/** A page of `walk` below `parent`, from `start` on (by default the top) when the page is the first. */
export function tweetPage(walk: TweetWalk, parent: StoredId, page: PageRequest, start?: StoredId): Page<Tweet> {
  const [after] = keysetAfter<[BoundKey]>(page.after, ["id"], start === undefined ? undefined : [start]);
  return pageOf(walk.all(parent, after, page.size + 1), page.size, tweetFromRow, (row) => [idKey(row.id)]);
}

export type RangedWalkParams = [
  parent: StoredId,
  afterId: BoundKey,
  limit: number,
  sinceId: bigint,
  untilId: bigint,
  startMs: number,
  endMs: number,
];
type RangedTweetWalk = Statement<TweetRow, RangedWalkParams>;

/**
 * The tweets of `from` that meet `where`, newest first, within a read range (see rangedTweetPage), walked
 * by `key`: the tweet id as the walked index holds it.
 */
export function tweetsNewestFirstWithin(db: Database, where: string, from = "tweets t", key = "t.id"): RangedTweetWalk {
  return newestFirst<RangedWalkParams>(
    db,
    `${where} AND ${key} > ?4 AND ${key} < ?5 AND t.created_ms >= ?6 AND t.created_ms < ?7`,
    from,
    key,
  );
}

/** A page of `walk` below `parent` within `page.range`; ids are bound exactly, as BIGINTs. */
export function rangedTweetPage(walk: RangedTweetWalk, parent: StoredId, page: PageRequest): Page<Tweet> {
  const [after] = keysetAfter<[BoundKey]>(page.after, ["id"]);
  const { sinceId, untilId, startMs, endMs } = closedRange(page.range);
  const rows = walk.all(parent, after, page.size + 1, sinceId, untilId, startMs, endMs);
  return pageOf(rows, page.size, tweetFromRow, (row) => [idKey(row.id)]);
}

export function userPage(walk: UserWalk, parent: StoredId, page: PageRequest): Page<User> {
  const [k1, k2] = keysetAfter<[BoundKey, BoundKey]>(page.after, ["int", "id"]);
  const rows = walk.all(parent, k1, k2, page.size + 1);
  return pageOf(rows, page.size, userFromRow, (row) => [row.k1, idKey(row.k2)]);
}

/** The tweets of `from` that meet `where` (?1 the parent), newest first. */
export function tweetsNewestFirst(db: Database, where: string, from = "tweets t"): TweetWalk {
  return newestFirst<TweetWalkParams>(db, where, from);
}

/** Every walk down a parent's tweets: ?2 the id to continue below, ?3 how many rows. */
function newestFirst<Params extends TweetWalkParams | RangedWalkParams>(
  db: Database,
  where: string,
  from: string,
  key = "t.id",
) {
  return db.query<TweetRow, Params>(
    `SELECT ${TWEET_COLUMNS} FROM ${from} WHERE ${where} AND ${VISIBLE} AND ${key} < ?2 ORDER BY ${key} DESC LIMIT ?3`,
  );
}

/** Users reached through a relation table `r` whose key is (parent, created_ms, user), newest first. */
export function usersNewestFirst(db: Database, table: string, parent: string, user: string, filter = ""): UserWalk {
  return db.query<KeyedUserRow, UserWalkParams>(
    `SELECT ${USER_COLUMNS}, r.created_ms AS k1, CAST(r.${user} AS TEXT) AS k2 FROM ${table} r JOIN users u ON u.id = r.${user}
       WHERE r.${parent} = ?${filter} AND (r.created_ms, r.${user}) < (?, ?)
       ORDER BY r.created_ms DESC, r.${user} DESC LIMIT ?`,
  );
}
