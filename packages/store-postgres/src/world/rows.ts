// Rows of the world's tables turned back into the model's objects, field for field in the order SQLite's
// rows give them (packages/store-sqlite/src/world/rows.ts), so both adapters' answers serialize alike.
// BIGINT columns arrive as decimal strings: an id is then already the model's string, and a timestamp
// or a sort key becomes a number with Number() (every stored value is below 2^53).
import type { Tweet, User, UserLookup } from "@social/core";

/** The columns `tweetFromRow` reads, for a `tweets` table aliased `t`. */
export const TWEET_COLUMNS =
  "t.id, t.author_id, t.created_ms, t.conversation_id, t.lang, t.text, t.possibly_sensitive, t.like_count, " +
  "t.retweet_count, t.reply_count, t.quote_count, t.bookmark_count, t.is_quote_status, t.extra";

export interface TweetRow {
  id: string;
  author_id: string;
  created_ms: string;
  conversation_id: string;
  lang: string;
  text: string;
  possibly_sensitive: boolean;
  like_count: number;
  retweet_count: number;
  reply_count: number;
  quote_count: number;
  bookmark_count: number;
  is_quote_status: boolean;
  extra: string;
}

/** The part of a Tweet kept as JSON in `tweets.extra`. */
export type TweetExtra = Pick<
  Tweet,
  "entities" | "in_reply_to_user_id" | "referenced_tweets" | "display_text_range" | "quoted_tweet_id" | "media"
>;

export function tweetExtra(tweet: Tweet): TweetExtra {
  const extra: TweetExtra = { entities: tweet.entities };
  if (tweet.in_reply_to_user_id !== undefined) extra.in_reply_to_user_id = tweet.in_reply_to_user_id;
  if (tweet.referenced_tweets !== undefined) extra.referenced_tweets = tweet.referenced_tweets;
  if (tweet.display_text_range !== undefined) extra.display_text_range = tweet.display_text_range;
  if (tweet.quoted_tweet_id !== undefined) extra.quoted_tweet_id = tweet.quoted_tweet_id;
  if (tweet.media !== undefined) extra.media = tweet.media;
  return extra;
}

export function tweetFromRow(row: TweetRow): Tweet {
  return {
    id: row.id,
    text: row.text,
    author_id: row.author_id,
    created_at: new Date(Number(row.created_ms)).toISOString(),
    lang: row.lang,
    conversation_id: row.conversation_id,
    possibly_sensitive: row.possibly_sensitive,
    like_count: row.like_count,
    retweet_count: row.retweet_count,
    reply_count: row.reply_count,
    quote_count: row.quote_count,
    bookmark_count: row.bookmark_count,
    is_quote_status: row.is_quote_status,
    ...(JSON.parse(row.extra) as TweetExtra),
  };
}

/** The columns `userFromRow` and `userLookupFromRow` read, for a `users` table aliased `u`. */
export const USER_COLUMNS = "u.status, u.doc";

export interface UserRow {
  status: string;
  doc: string;
}

export function userFromRow(row: UserRow): User {
  return JSON.parse(row.doc) as User;
}

export function userLookupFromRow(row: UserRow): UserLookup {
  return { ...userFromRow(row), status: row.status as UserLookup["status"] };
}

/** A model id as the BIGINT it is stored as; undefined for text that is no stored id (not canonical or ≥ 2^53). */
export function storedId(id: string): number | undefined {
  const value = Number(id);
  return Number.isSafeInteger(value) && value >= 0 && String(value) === id ? value : undefined;
}

/** Folds ASCII letters only, as SQLite's NOCASE collation does: the key of a case-insensitive username. */
export function asciiFold(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/**
 * The condition on every tweet read (the tweets table aliased `t`): a protected account's tweets are
 * for its followers, and this API reads as an app that follows nobody. A protected tweet is then
 * missing everywhere, a lookup by its id included.
 */
export const VISIBLE = "NOT t.author_protected";
