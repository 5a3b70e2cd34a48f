// What the reads of every resource share, as on SQLite (packages/store-sqlite/src/store/reads.ts): every
// paginated read is a keyset walk of one index, the cursor holds the sort key of the last row returned,
// and each page asks for one row more than it returns to learn whether another page exists.

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
import type { SQL } from "bun";
import { type TweetRow, VISIBLE } from "../world/rows.ts";

export { pageOf } from "@social/store-common";

// A tweet walk's cursor is its last row's id; a user walk's is its last row's (k1, k2): the time of the
// relation and the user's id, BIGINTs both, which arrive as decimal strings.
type KeyedUserRow = UserRow & { k1: string; k2: string };

/**
 * One SQL text with $n placeholders, run with positional parameters of the types `Params` names. Bun.sql
 * binds a JavaScript number beyond 32 bits as DOUBLE PRECISION, and a BIGINT column compared with a
 * double is filtered row by row instead of walked in its index: so the texts cast every id and key
 * parameter to its column's type.
 */
export interface Statement<Row, Params extends unknown[]> {
  all(...params: Params): Promise<Row[]>;
  /** The first row, or undefined. */
  get(...params: Params): Promise<Row | undefined>;
}

export function statement<Row, Params extends unknown[]>(sql: SQL, text: string): Statement<Row, Params> {
  const all = (...params: Params) => sql.unsafe<Row[]>(text, params).then((rows) => [...rows]);
  return { all, get: async (...params) => (await all(...params))[0] };
}

export type TweetWalkParams = [parent: StoredId, afterId: BoundKey, limit: number];
type UserWalkParams = [parent: StoredId, afterK1: BoundKey, afterK2: BoundKey, limit: number];
type TweetWalk = Statement<TweetRow, TweetWalkParams>;
export type UserWalk = Statement<KeyedUserRow, UserWalkParams>;

/** The row `byId` finds for the model id `id`; undefined when `id` is no stored id or names no row. */
export async function rowById<Row>(byId: Statement<Row, [StoredId]>, id: string): Promise<Row | undefined> {
  const stored = storedId(id);
  return stored === undefined ? undefined : byId.get(stored);
}

/** A read by ids, as two statements: for one id, and for an array of them. */
export interface ByIds<Row> {
  one: Statement<Row, [id: string]>;
  many: Statement<Row, [ids: string]>;
}

/**
 * The statements of `text`, whose `id` placeholder becomes the id condition. One id is the common case
 * (a lookup) and is bound as a scalar: PostgreSQL then settles on one generic plan, where an array's
 * unknown length makes the planner plan every call anew, at a cost in the server's CPU on every lookup.
 */
export function byIds<Row>(sql: SQL, text: (idCondition: string) => string): ByIds<Row> {
  return {
    one: statement(sql, text("= $1::bigint")),
    many: statement(sql, text("= ANY($1::bigint[])")),
  };
}

/**
 * What `read` (rows with an `id`) finds for `ids` as `item`s, in the order of `ids` and repeated as they
 * are; ids it finds nothing for are left out.
 */
export async function itemsByIds<Row extends { id: string }, Item>(
  read: ByIds<Row>,
  ids: readonly string[],
  item: (row: Row) => Item,
): Promise<Item[]> {
  const stored = [...new Set(ids.filter((id) => storedId(id) !== undefined))];
  if (stored.length === 0) return [];
  const found = stored.length === 1 ? read.one.all(stored[0] as string) : read.many.all(`{${stored.join(",")}}`);
  const rows = new Map((await found).map((row) => [row.id, row]));
  return ids.flatMap((id) => {
    const row = rows.get(id);
    return row === undefined ? [] : [item(row)];
  });
}

/** `values` as a PostgreSQL text[] literal, each element quoted, so that any text is one element. */
export function textArray(values: readonly string[]): string {
  return `{${values.map((value) => `"${value.replace(/["\\]/g, "\\$&")}"`).join(",")}}`;
}

/** `id` as stored when `exists` finds it: the parent of a page, which is a 404 when missing. */
export async function existingId(exists: Statement<object, [StoredId]>, id: string): Promise<StoredId | undefined> {
  const stored = storedId(id);
  return stored !== undefined && (await exists.get(stored)) !== undefined ? stored : undefined;
}

/** A page of `walk` below `parent`, from `start` on (by default the top) when the page is the first. */
export async function tweetPage(
  walk: TweetWalk,
  parent: StoredId,
  page: PageRequest,
  start?: StoredId,
): Promise<Page<Tweet>> {
  const [after] = keysetAfter<[BoundKey]>(page.after, ["id"], start === undefined ? undefined : [start]);
  const rows = await walk.all(parent, after, page.size + 1);
  return pageOf(rows, page.size, tweetFromRow, (row) => [idKey(row.id)]);
}

type RangedWalkParams = [
  parent: StoredId,
  afterId: BoundKey,
  limit: number,
  sinceId: string,
  untilId: string,
  startMs: number,
  endMs: number,
];
type RangedTweetWalk = Statement<TweetRow, RangedWalkParams>;

/**
 * The tweets of `from` that meet `where`, newest first, within a read range (see rangedTweetPage), walked
 * by `key`: the tweet id as the walked index holds it.
 */
export function tweetsNewestFirstWithin(sql: SQL, where: string, from = "tweets t", key = "t.id"): RangedTweetWalk {
  return newestFirst<RangedWalkParams>(
    sql,
    `${where} AND ${key} > $4::bigint AND ${key} < $5::bigint AND t.created_ms >= $6::bigint AND t.created_ms < $7::bigint`,
    from,
    key,
  );
}

/** A page of `walk` below `parent` within `page.range`; ids are bound as text, so exactly. */
export async function rangedTweetPage(
  walk: RangedTweetWalk,
  parent: StoredId,
  page: PageRequest,
): Promise<Page<Tweet>> {
  const [after] = keysetAfter<[BoundKey]>(page.after, ["id"]);
  const { sinceId, untilId, startMs, endMs } = closedRange(page.range);
  const rows = await walk.all(parent, after, page.size + 1, String(sinceId), String(untilId), startMs, endMs);
  return pageOf(rows, page.size, tweetFromRow, (row) => [idKey(row.id)]);
}

export async function userPage(walk: UserWalk, parent: StoredId, page: PageRequest): Promise<Page<User>> {
  const [k1, k2] = keysetAfter<[BoundKey, BoundKey]>(page.after, ["int", "id"]);
  const rows = await walk.all(parent, k1, k2, page.size + 1);
  return pageOf(rows, page.size, userFromRow, (row) => [Number(row.k1), idKey(row.k2)]);
}

/** The tweets of `from` that meet `where` ($1 the parent), newest first. */
export function tweetsNewestFirst(sql: SQL, where: string, from = "tweets t"): TweetWalk {
  return newestFirst<TweetWalkParams>(sql, where, from);
}

/** Every walk down a parent's tweets: $2 the id to continue below, $3 how many rows. */
function newestFirst<Params extends unknown[]>(sql: SQL, where: string, from: string, key = "t.id") {
  return statement<TweetRow, Params>(
    sql,
    `SELECT ${TWEET_COLUMNS} FROM ${from} WHERE ${where} AND ${VISIBLE} AND ${key} < $2::bigint
     ORDER BY ${key} DESC LIMIT $3`,
  );
}

/** Users reached through a relation table `r` whose key is (parent, created_ms, user), newest first. */
export function usersNewestFirst(sql: SQL, table: string, parent: string, user: string, filter = ""): UserWalk {
  return statement(
    sql,
    `SELECT ${USER_COLUMNS}, r.created_ms AS k1, r.${user} AS k2 FROM ${table} r JOIN users u ON u.id = r.${user}
     WHERE r.${parent} = $1::bigint${filter} AND (r.created_ms, r.${user}) < ($2::bigint, $3::bigint)
     ORDER BY r.created_ms DESC, r.${user} DESC LIMIT $4`,
  );
}
