// The tweets whose search terms a write changes, gathered in a temporary table. The index is
// external-content over the view tweet_search_content, so a row is forgotten with the values the view
// yields before the change and indexed again from the view after it (a row the write deleted, the view
// no longer yields): the index then holds exactly what a rebuild would.
import type { Database } from "bun:sqlite";

/** The temporary table of touched tweet ids. */
export const TOUCHED = "temp.touched_tweets";

export function touchedTweets(db: Database) {
  db.run("CREATE TEMP TABLE IF NOT EXISTS touched_tweets (id INTEGER PRIMARY KEY)");
  return {
    touch: db.query(`INSERT OR IGNORE INTO ${TOUCHED} (id) VALUES (?)`),
    touchAuthor: db.query(`INSERT OR IGNORE INTO ${TOUCHED} (id) SELECT id FROM tweets WHERE author_id = ?`),
    // Replies name their user in the JSON only, which the index tweets_reply_to_user keys them by.
    touchRepliesTo: db.query(
      `INSERT OR IGNORE INTO ${TOUCHED} (id) SELECT id FROM tweets
       WHERE is_reply = 1 AND CAST(json_extract(extra, '$.in_reply_to_user_id') AS INTEGER) = ?`,
    ),
    forget: db.query(
      `INSERT INTO tweets_fts (tweets_fts, rowid, text, author, lang, flags)
       SELECT 'delete', id, text, author, lang, flags FROM tweet_search_content WHERE id IN (SELECT id FROM ${TOUCHED})`,
    ),
    index: db.query(
      `INSERT INTO tweets_fts (rowid, text, author, lang, flags)
       SELECT id, text, author, lang, flags FROM tweet_search_content WHERE id IN (SELECT id FROM ${TOUCHED})`,
    ),
    clear: db.query(`DELETE FROM ${TOUCHED}`),
  };
}
