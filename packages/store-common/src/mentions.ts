// The mentions index behind a user's mentions timeline (Store.timeline(id, "mentions")): a row for each
// user a stored tweet names in entities.mentions by id. A mention kept by username alone (of a user the
// world did not hold when it was imported) has none; it has a row in the table of mention names instead,
// by which an import finds the posts to give the id once that user arrives (planImport). Both are
// derived from the tweet alone, here, by every routine that writes a tweet (the generated world's
// writer, each import batch), so they follow whatever a tweet's mentions say when it is written; a
// removal deletes a removed tweet's rows.
import { foldUsername, type Tweet } from "@social/core";
import { boundId, type StoredId } from "./ids.ts";

/** The table, keyed (tweet_id, user_id) with an index on (user_id, tweet_id) that the timeline walks. */
export const MENTIONS_TABLE = "tweet_mentions";

/** The mentions by username alone, keyed (tweet_id, username_key) with an index on (username_key, tweet_id). */
export const MENTION_NAMES_TABLE = "tweet_mention_names";

export type MentionColumns = { tweet_id: StoredId; user_id: StoredId };

export type MentionNameColumns = { tweet_id: StoredId; username_key: string };

/** The index rows of `tweet`: one per user its mentions name by id, however often it names them. */
export function tweetMentions(tweet: Tweet): MentionColumns[] {
  const tweetId = boundId(tweet.id);
  const users = new Set(tweet.entities.mentions.flatMap((mention) => (mention.id === undefined ? [] : [mention.id])));
  return [...users].map((userId) => ({ tweet_id: tweetId, user_id: boundId(userId) }));
}

/** The mention names rows of `tweet`: one per username (folded) its mentions give without an id. */
export function tweetMentionNames(tweet: Tweet): MentionNameColumns[] {
  const tweetId = boundId(tweet.id);
  const names = new Set(
    tweet.entities.mentions.flatMap((mention) => (mention.id === undefined ? [foldUsername(mention.username)] : [])),
  );
  return [...names].map((username_key) => ({ tweet_id: tweetId, username_key }));
}
