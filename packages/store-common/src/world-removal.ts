// What a removal deletes (core's ports/world-removal.ts says what depends on what), as plain SQL both
// databases run alike. The adapter creates two temporary tables of ids, `removed_users` and
// `removed_tweets` (a primary key `id`), puts the ids it was given that the world holds in them, runs
// GATHER_REMOVED, then each of DELETE_REMOVED counting the rows it deleted; its search index is its own
// to keep in step. The mentions index (./mentions.ts) is derived from the tweets, and its rows go with
// theirs uncounted, as a search index's do.
import type { RemovedRows } from "@social/core";
import { MENTION_NAMES_TABLE, MENTIONS_TABLE } from "./mentions.ts";

const USERS = "(SELECT id FROM removed_users)";
const TWEETS = "(SELECT id FROM removed_tweets)";
const OWNED_LISTS = `(SELECT id FROM lists WHERE owner_id IN ${USERS})`;

/** The tweets that go with the users and tweets given: the users' posts, then the retweets of every post that goes. */
export const GATHER_REMOVED: readonly string[] = [
  `INSERT INTO removed_tweets (id) SELECT id FROM tweets WHERE author_id IN ${USERS} ON CONFLICT DO NOTHING`,
  `INSERT INTO removed_tweets (id) SELECT id FROM tweets WHERE retweeted_id IN ${TWEETS} ON CONFLICT DO NOTHING`,
];

/** The deletes, in order (a list's members before the list), each with the table its rows are counted as. */
export const DELETE_REMOVED: readonly { rows: keyof RemovedRows; sql: string }[] = [
  { rows: "community_tweets", sql: `DELETE FROM community_tweets WHERE tweet_id IN ${TWEETS}` },
  { rows: "articles", sql: `DELETE FROM articles WHERE tweet_id IN ${TWEETS} OR author_id IN ${USERS}` },
  { rows: "tweets", sql: `DELETE FROM tweets WHERE id IN ${TWEETS}` },
  // One statement per side, so that each walks its own index.
  { rows: "follows", sql: `DELETE FROM follows WHERE follower_id IN ${USERS}` },
  { rows: "follows", sql: `DELETE FROM follows WHERE followee_id IN ${USERS}` },
  { rows: "list_members", sql: `DELETE FROM list_members WHERE list_id IN ${OWNED_LISTS} OR user_id IN ${USERS}` },
  {
    rows: "list_subscribers",
    sql: `DELETE FROM list_subscribers WHERE list_id IN ${OWNED_LISTS} OR user_id IN ${USERS}`,
  },
  { rows: "lists", sql: `DELETE FROM lists WHERE owner_id IN ${USERS}` },
  { rows: "community_members", sql: `DELETE FROM community_members WHERE user_id IN ${USERS}` },
  { rows: "users", sql: `DELETE FROM users WHERE id IN ${USERS}` },
];

/**
 * The mentions index rows and mention names of the removed tweets; a removed user's own timeline is
 * gone with the user.
 */
export const FORGET_REMOVED_MENTIONS: readonly string[] = [MENTIONS_TABLE, MENTION_NAMES_TABLE].map(
  (table) => `DELETE FROM ${table} WHERE tweet_id IN ${TWEETS}`,
);
