// The mentions index behind a user's mentions timeline (Store.timeline(id, "mentions")): a row for each
// user a stored tweet names in entities.mentions by id (a mention kept by username alone, of a user the
// world did not hold when it was imported, has none). It is derived from the tweet alone, here, by
// every routine that writes a tweet (the generated world's writer, each import batch), so it follows
// whatever a tweet's mentions say when it is written; a removal deletes a removed tweet's rows.
import type { Tweet } from "@social/core";
import { boundId, type StoredId } from "./ids.ts";

/** The table, keyed (tweet_id, user_id) with an index on (user_id, tweet_id) that the timeline walks. */
export const MENTIONS_TABLE = "tweet_mentions";

export type MentionColumns = { tweet_id: StoredId; user_id: StoredId };

/** The index rows of `tweet`: one per user its mentions name by id, however often it names them. */
export function tweetMentions(tweet: Tweet): MentionColumns[] {
  const tweetId = boundId(tweet.id);
  const users = new Set(tweet.entities.mentions.flatMap((mention) => (mention.id === undefined ? [] : [mention.id])));
  return [...users].map((userId) => ({ tweet_id: tweetId, user_id: boundId(userId) }));
}
