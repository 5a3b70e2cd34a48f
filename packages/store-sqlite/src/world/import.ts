// Imports into a SQLite world (core's WorldImport port): each batch is one IMMEDIATE transaction that
// reads the stored copies (and the stored tweets that name the batch's users by username alone), writes
// what planImport decided, and keeps the search index in step (./touched.ts) and the mentions index and
// mention names; the posts it adds wait as arrivals for the monitors' matcher while any monitor is
// active; the last settles the world's meta (./settle.ts).
import type { Database } from "bun:sqlite";
import {
  type BatchCounts,
  foldUsername,
  type ImportBatch,
  type ImportedWorld,
  type UserLookup,
  type WorldImport,
} from "@social/core";
import {
  arrivedTweetIds,
  boundId,
  namesOfBatch,
  planImport,
  type StoredTweet,
  TWEET_COLUMNS,
  tweetFromRow,
  tweetMentionNames,
  tweetMentions,
  USER_COLUMNS,
  type UserRow,
  userLookupFromRow,
  usersOfBatch,
} from "@social/store-common";
import { readFollowPosition, writeFollowPosition } from "./follow-position.ts";
import { TWEET_INSERT_COLUMNS, type TweetRow, tweetValues } from "./rows.ts";
import { measureWorld, storeSettled } from "./settle.ts";
import { touchedTweets } from "./touched.ts";

function statements(db: Database) {
  return {
    user: db.query<UserRow & { id: string }, [bigint | number]>(
      `SELECT CAST(u.id AS TEXT) AS id, ${USER_COLUMNS} FROM users u WHERE u.id = ?`,
    ),
    usernameHolder: db.query<{ id: string }, [string]>(
      "SELECT CAST(id AS TEXT) AS id FROM users WHERE username = ? COLLATE NOCASE",
    ),
    tweet: db.query<TweetRow & { versions: number }, [bigint | number]>(
      `SELECT ${TWEET_COLUMNS}, t.versions FROM tweets t WHERE t.id = ?`,
    ),
    upsertUser: db.query(
      `INSERT INTO users (id, username, status, doc) VALUES (?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET username = excluded.username, status = excluded.status, doc = excluded.doc`,
    ),
    upsertTweet: db.query(
      `INSERT INTO tweets (${TWEET_INSERT_COLUMNS}, versions) VALUES (${"?, ".repeat(21)}?)
       ON CONFLICT (id) DO UPDATE SET author_id = excluded.author_id, created_ms = excluded.created_ms,
        conversation_id = excluded.conversation_id, lang = excluded.lang, text = excluded.text,
        possibly_sensitive = excluded.possibly_sensitive, like_count = excluded.like_count,
        retweet_count = excluded.retweet_count, reply_count = excluded.reply_count,
        quote_count = excluded.quote_count, bookmark_count = excluded.bookmark_count,
        is_quote_status = excluded.is_quote_status, is_reply = excluded.is_reply, has_media = excluded.has_media,
        has_links = excluded.has_links, reply_to_id = excluded.reply_to_id, quoted_id = excluded.quoted_id,
        retweeted_id = excluded.retweeted_id, extra = excluded.extra, author_protected = excluded.author_protected,
        versions = excluded.versions`,
    ),
    mentioningByName: db.query<{ id: string }, [string]>(
      "SELECT CAST(tweet_id AS TEXT) AS id FROM tweet_mention_names WHERE username_key = ?",
    ),
    forgetMentions: db.query("DELETE FROM tweet_mentions WHERE tweet_id = ?"),
    mention: db.query("INSERT INTO tweet_mentions (tweet_id, user_id) VALUES (?, ?)"),
    forgetMentionNames: db.query("DELETE FROM tweet_mention_names WHERE tweet_id = ?"),
    mentionName: db.query("INSERT INTO tweet_mention_names (tweet_id, username_key) VALUES (?, ?)"),
    protectAuthor: db.query("UPDATE tweets SET author_protected = ? WHERE author_id = ?"),
    followerVerified: db.query("UPDATE follows SET follower_verified = ? WHERE follower_id = ?"),
    followeeVerified: db.query("UPDATE follows SET followee_verified = ? WHERE followee_id = ?"),
    anyActiveMonitor: db.query<{ found: number }, []>(
      "SELECT EXISTS (SELECT 1 FROM monitors WHERE status = 'active') AS found",
    ),
    arrival: db.query("INSERT INTO monitor_arrivals (tweet_id) VALUES (?)"),
  };
}

export class SqliteWorldImport implements WorldImport {
  readonly #db: Database;
  readonly #q: ReturnType<typeof statements>;
  readonly #touched: ReturnType<typeof touchedTweets>;

  constructor(db: Database) {
    this.#db = db;
    this.#q = statements(db);
    this.#touched = touchedTweets(db);
  }

  async lookUp(userIds: readonly string[], usernames: readonly string[]) {
    const users = new Set(userIds.filter((id) => this.#q.user.get(boundId(id)) !== null));
    const holders = new Map<string, string>();
    for (const username of usernames) {
      const holder = this.#q.usernameHolder.get(username);
      if (holder !== null) holders.set(foldUsername(username), holder.id);
    }
    return { users, usernames: holders };
  }

  async write(batch: ImportBatch): Promise<BatchCounts> {
    return this.#db.transaction(() => this.#write(batch)).immediate();
  }

  #write(batch: ImportBatch): BatchCounts {
    const q = this.#q;
    const tweetIds = new Set(batch.tweets.map(({ tweet }) => tweet.id));
    const mentioning = new Set<string>();
    for (const name of namesOfBatch(batch)) {
      for (const { id } of q.mentioningByName.all(name)) if (!tweetIds.has(id)) mentioning.add(id);
    }
    const storedTweets = new Map<string, StoredTweet>();
    for (const id of [...tweetIds, ...mentioning]) {
      const row = q.tweet.get(boundId(id));
      if (row !== null) storedTweets.set(id, { tweet: tweetFromRow(row), versions: row.versions });
    }
    const storedUsers = new Map<string, UserLookup>();
    const mentioningTweets = [...mentioning].flatMap((id) => storedTweets.get(id)?.tweet ?? []);
    for (const id of usersOfBatch(batch, mentioningTweets)) {
      const row = q.user.get(boundId(id));
      if (row !== null) storedUsers.set(id, userLookupFromRow(row));
    }
    const plan = planImport(batch, storedUsers, storedTweets);
    const touched = this.#touched;

    for (const { tweet, added } of plan.tweets) if (!added) touched.touch.run(boundId(tweet.id));
    for (const id of plan.changedAuthors) touched.touchAuthor.run(boundId(id));
    for (const id of plan.newUsernames) touched.touchRepliesTo.run(boundId(id));
    touched.forget.run();

    for (const { row } of plan.users) q.upsertUser.run(row.id, row.username, row.status, row.doc);
    for (const { tweet, row } of plan.tweets) {
      q.upsertTweet.run(...tweetValues(row), row.versions);
      touched.touch.run(row.id);
      // A replaced copy's mentions are its own: the index and the names follow the copy written.
      q.forgetMentions.run(row.id);
      for (const mention of tweetMentions(tweet)) q.mention.run(mention.tweet_id, mention.user_id);
      q.forgetMentionNames.run(row.id);
      for (const name of tweetMentionNames(tweet)) q.mentionName.run(name.tweet_id, name.username_key);
    }
    for (const id of plan.changedAuthors) {
      q.protectAuthor.run(plan.userAfter(id)?.protected ? 1 : 0, boundId(id));
    }
    for (const [id, verified] of plan.reverified) {
      q.followerVerified.run(verified ? 1 : 0, boundId(id));
      q.followeeVerified.run(verified ? 1 : 0, boundId(id));
    }

    touched.index.run();
    touched.clear.run();
    const arrived = arrivedTweetIds(plan);
    if (arrived.length > 0 && q.anyActiveMonitor.get()?.found) for (const id of arrived) q.arrival.run(boundId(id));
    if (batch.position !== undefined) writeFollowPosition(this.#db, batch.position);
    return plan.counts;
  }

  async followPosition(path: string) {
    return readFollowPosition(this.#db, path);
  }

  async finish(): Promise<ImportedWorld> {
    // Measured in a snapshot of its own, without the write lock the server's charges wait for. Another
    // importer's batch committed in between is left for the next settle.
    const measured = this.#db.transaction(() => measureWorld(this.#db)).deferred();
    return this.#db.transaction(() => storeSettled(this.#db, measured)).immediate();
  }
}
