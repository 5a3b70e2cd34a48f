// How SQLite's rows of the world arrive: timestamps and flags as INTEGER numbers, ids as text (they are
// read with CAST, see @social/store-common ids.ts). The mapping back to the model's objects is the one
// every adapter shares (@social/store-common).
import type { TweetColumns, TweetRowOf } from "@social/store-common";

export type TweetRow = TweetRowOf<number, number>;
export type { CommunityRow } from "@social/store-common";

/**
 * The condition on every tweet read (the tweets table aliased `t`): a protected account's tweets are
 * for its followers, and this API reads as an app that follows nobody. A protected tweet is then
 * missing everywhere, a lookup by its id included.
 */
export const VISIBLE = "t.author_protected = 0";

/** The columns a tweet row is inserted with, in tweetValues' order. */
export const TWEET_INSERT_COLUMNS =
  "id, author_id, created_ms, conversation_id, lang, text, possibly_sensitive, like_count, retweet_count, " +
  "reply_count, quote_count, bookmark_count, is_quote_status, is_reply, has_media, has_links, reply_to_id, " +
  "quoted_id, retweeted_id, extra, author_protected";

/** A tweet row's values in TWEET_INSERT_COLUMNS' order, flags as 0/1. */
export function tweetValues(row: TweetColumns) {
  return [
    row.id,
    row.author_id,
    row.created_ms,
    row.conversation_id,
    row.lang,
    row.text,
    row.possibly_sensitive ? 1 : 0,
    row.like_count,
    row.retweet_count,
    row.reply_count,
    row.quote_count,
    row.bookmark_count,
    row.is_quote_status ? 1 : 0,
    row.is_reply ? 1 : 0,
    row.has_media ? 1 : 0,
    row.has_links ? 1 : 0,
    row.reply_to_id,
    row.quoted_id,
    row.retweeted_id,
    row.extra,
    row.author_protected ? 1 : 0,
  ] as const;
}
