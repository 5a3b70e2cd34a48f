// Rows of the world's tables turned back into the model's objects, one mapping for every adapter so
// their answers serialize alike. Ids are read as text (see ./ids.ts); a timestamp is a number from
// SQLite's INTEGER and a decimal string from PostgreSQL's BIGINT, a flag is 0/1 on SQLite and a boolean
// on PostgreSQL. Optional fields are carried in the JSON they arrived in, so a field absent from the
// generator's object is absent here too.
import {
  type Community,
  type Tweet,
  type TweetXFields,
  type User,
  type UserLookup,
  type UserXFields,
  X_FIELDS,
} from "@social/core";

/**
 * The columns `tweetFromRow` reads, for a `tweets` table aliased `t`. A statement that selects them must
 * order by `t.id`, never by a bare `id`: that names the text column here, whose order is not the ids'.
 */
export const TWEET_COLUMNS =
  "CAST(t.id AS TEXT) AS id, CAST(t.author_id AS TEXT) AS author_id, t.created_ms, " +
  "CAST(t.conversation_id AS TEXT) AS conversation_id, t.lang, t.text, t.possibly_sensitive, t.like_count, " +
  "t.retweet_count, t.reply_count, t.quote_count, t.bookmark_count, t.is_quote_status, t.extra";

/** A `tweets` row as a driver returns it: `Int` is how timestamps arrive, `Flag` how flags do. */
export interface TweetRowOf<Int extends number | string, Flag extends number | boolean> {
  id: string;
  author_id: string;
  created_ms: Int;
  conversation_id: string;
  lang: string;
  text: string;
  possibly_sensitive: Flag;
  like_count: number;
  retweet_count: number;
  reply_count: number;
  quote_count: number;
  bookmark_count: number;
  is_quote_status: Flag;
  extra: string;
}

/**
 * The part of a Tweet kept as JSON in `tweets.extra`; `x` holds what an imported tweet said beyond the
 * model (model.ts's X_FIELDS), and a User's `doc` likewise. These mappings are its only owner: a row
 * read back carries it under X_FIELDS, where /v1 and MCP never see it.
 */
export type TweetExtra = Pick<
  Tweet,
  "entities" | "in_reply_to_user_id" | "referenced_tweets" | "display_text_range" | "quoted_tweet_id" | "media"
> & { x?: TweetXFields };

/** A User's `doc` JSON: the User's own fields, and `x` when the user was imported with X-only fields. */
export type UserDoc = User & { x?: UserXFields };

export function userDoc(user: User): string {
  const x = user[X_FIELDS];
  return JSON.stringify(x === undefined ? user : { ...user, x });
}

export function tweetExtra(tweet: Tweet): TweetExtra {
  const extra: TweetExtra = { entities: tweet.entities };
  if (tweet.in_reply_to_user_id !== undefined) extra.in_reply_to_user_id = tweet.in_reply_to_user_id;
  if (tweet.referenced_tweets !== undefined) extra.referenced_tweets = tweet.referenced_tweets;
  if (tweet.display_text_range !== undefined) extra.display_text_range = tweet.display_text_range;
  if (tweet.quoted_tweet_id !== undefined) extra.quoted_tweet_id = tweet.quoted_tweet_id;
  if (tweet.media !== undefined) extra.media = tweet.media;
  if (tweet[X_FIELDS] !== undefined) extra.x = tweet[X_FIELDS];
  return extra;
}

function flag(value: number | boolean): boolean {
  return value === true || value === 1;
}

export function tweetFromRow(row: TweetRowOf<number | string, number | boolean>): Tweet {
  const { x, ...extra } = JSON.parse(row.extra) as TweetExtra;
  return {
    id: row.id,
    text: row.text,
    author_id: row.author_id,
    created_at: new Date(Number(row.created_ms)).toISOString(),
    lang: row.lang,
    conversation_id: row.conversation_id,
    possibly_sensitive: flag(row.possibly_sensitive),
    like_count: row.like_count,
    retweet_count: row.retweet_count,
    reply_count: row.reply_count,
    quote_count: row.quote_count,
    bookmark_count: row.bookmark_count,
    is_quote_status: flag(row.is_quote_status),
    ...extra,
    ...(x === undefined ? {} : { [X_FIELDS]: x }),
  };
}

/** The columns `userFromRow` and `userLookupFromRow` read, for a `users` table aliased `u`. */
export const USER_COLUMNS = "u.status, u.doc";

export interface UserRow {
  status: string;
  doc: string;
}

export function userFromRow(row: UserRow): User {
  const { x, ...user } = JSON.parse(row.doc) as UserDoc;
  return x === undefined ? user : { ...user, [X_FIELDS]: x };
}

export function userLookupFromRow(row: UserRow): UserLookup {
  return { ...userFromRow(row), status: row.status as UserLookup["status"] };
}

export interface CommunityRow {
  id: string;
  name: string;
  description: string;
  member_count: number;
}

export function communityFromRow(row: CommunityRow): Community {
  return { id: row.id, name: row.name, description: row.description, member_count: row.member_count };
}
