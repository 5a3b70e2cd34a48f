// Imports into a SQLite world (core's WorldImport port): each batch is one IMMEDIATE transaction that
// reads the stored copies, writes what planImport decided, and keeps the search index in step. The index
// is external-content over the view tweet_search_content, so a row is forgotten with the values the view
// yields before the change and indexed again from the view after it: the index then holds exactly what
// a rebuild would.
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
  boundId,
  type HashtagCount,
  IMPORTED_SEED,
  importedCounts,
  importedShowcase,
  importedTrends,
  MAX_IMPORTED_TRENDS,
  planImport,
  type StoredTweet,
  TRENDS_WINDOW_MS,
  TWEET_COLUMNS,
  tweetFromRow,
  USER_COLUMNS,
  type UserRow,
  userLookupFromRow,
  usersOfBatch,
  WORLDWIDE_WOEID,
  type WorldCounts,
} from "@social/store-kit";
import { TWEET_INSERT_COLUMNS, type TweetRow, tweetValues } from "./rows.ts";

const TOUCHED = "temp.import_touched";

function statements(db: Database) {
  db.run(`CREATE TEMP TABLE IF NOT EXISTS import_touched (id INTEGER PRIMARY KEY)`);
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
    touch: db.query(`INSERT OR IGNORE INTO ${TOUCHED} (id) VALUES (?)`),
    touchAuthor: db.query(`INSERT OR IGNORE INTO ${TOUCHED} (id) SELECT id FROM tweets WHERE author_id = ?`),
    // Replies name their user in the JSON only: a rename is rare enough to scan the replies for.
    touchRepliesTo: db.query(
      `INSERT OR IGNORE INTO ${TOUCHED} (id) SELECT id FROM tweets
       WHERE is_reply = 1 AND CAST(json_extract(extra, '$.in_reply_to_user_id') AS INTEGER) = ?`,
    ),
    forgetTouched: db.query(
      `INSERT INTO tweets_fts (tweets_fts, rowid, text, author, lang, flags)
       SELECT 'delete', id, text, author, lang, flags FROM tweet_search_content WHERE id IN (SELECT id FROM ${TOUCHED})`,
    ),
    indexTouched: db.query(
      `INSERT INTO tweets_fts (rowid, text, author, lang, flags)
       SELECT id, text, author, lang, flags FROM tweet_search_content WHERE id IN (SELECT id FROM ${TOUCHED})`,
    ),
    clearTouched: db.query(`DELETE FROM ${TOUCHED}`),
    protectAuthor: db.query("UPDATE tweets SET author_protected = ? WHERE author_id = ?"),
    followerVerified: db.query("UPDATE follows SET follower_verified = ? WHERE follower_id = ?"),
    followeeVerified: db.query("UPDATE follows SET followee_verified = ? WHERE followee_id = ?"),
  };
}

export class SqliteWorldImport implements WorldImport {
  readonly #db: Database;
  readonly #q: ReturnType<typeof statements>;

  constructor(db: Database) {
    this.#db = db;
    this.#q = statements(db);
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
    const storedUsers = new Map<string, UserLookup>();
    for (const id of usersOfBatch(batch)) {
      const row = q.user.get(boundId(id));
      if (row !== null) storedUsers.set(id, userLookupFromRow(row));
    }
    const storedTweets = new Map<string, StoredTweet>();
    for (const { tweet } of batch.tweets) {
      const row = q.tweet.get(boundId(tweet.id));
      if (row !== null) storedTweets.set(tweet.id, { tweet: tweetFromRow(row), versions: row.versions });
    }
    const plan = planImport(batch, storedUsers, storedTweets);

    for (const { tweet, added } of plan.tweets) if (!added) q.touch.run(boundId(tweet.id));
    for (const id of plan.changedAuthors) q.touchAuthor.run(boundId(id));
    for (const id of plan.renamed) q.touchRepliesTo.run(boundId(id));
    q.forgetTouched.run();

    for (const { row } of plan.users) q.upsertUser.run(row.id, row.username, row.status, row.doc);
    for (const { row } of plan.tweets) {
      q.upsertTweet.run(...tweetValues(row), row.versions);
      q.touch.run(row.id);
    }
    for (const id of plan.changedAuthors) {
      q.protectAuthor.run(plan.userAfter(id)?.protected ? 1 : 0, boundId(id));
    }
    for (const [id, verified] of plan.reverified) {
      q.followerVerified.run(verified ? 1 : 0, boundId(id));
      q.followeeVerified.run(verified ? 1 : 0, boundId(id));
    }

    q.indexTouched.run();
    q.clearTouched.run();
    return plan.counts;
  }

  async finish(): Promise<ImportedWorld> {
    return this.#db.transaction(() => this.#finish()).immediate();
  }

  #finish(): ImportedWorld {
    const db = this.#db;
    const meta = db
      .query<{ origin: string; clock_ms: number; counts: string }, []>(
        "SELECT origin, clock_ms, counts FROM world_meta WHERE id = 1",
      )
      .get();
    const imported = meta === null || meta.origin === "imported";
    const { users, tweets, newest } = db
      .query<{ users: number; tweets: number; newest: number | null }, []>(
        "SELECT (SELECT count(*) FROM users) AS users, (SELECT count(*) FROM tweets) AS tweets, (SELECT max(created_ms) FROM tweets) AS newest",
      )
      .get() ?? { users: 0, tweets: 0, newest: null };
    // A generated world's clock moves only forward, to its newest post; an imported world's is its newest.
    const clockMs = imported ? (newest ?? meta?.clock_ms ?? Date.now()) : Math.max(meta?.clock_ms ?? 0, newest ?? 0);
    const counts = importedCounts(meta === null ? undefined : (JSON.parse(meta.counts) as WorldCounts), users, tweets);
    const idsFollowTime =
      db
        .query<{ behind: number }, []>(
          `SELECT count(*) AS behind FROM (SELECT created_ms < lag(created_ms) OVER (ORDER BY id) AS behind FROM tweets)
           WHERE behind`,
        )
        .get()?.behind === 0;
    const clock = new Date(clockMs).toISOString();
    if (meta === null) {
      db.query(
        `INSERT INTO world_meta (id, seed, clock, clock_ms, counts, ids_follow_time, origin)
         VALUES (1, ?, ?, ?, ?, ?, 'imported')`,
      ).run(IMPORTED_SEED, clock, clockMs, JSON.stringify(counts), idsFollowTime ? 1 : 0);
    } else {
      db.query("UPDATE world_meta SET clock = ?, clock_ms = ?, counts = ?, ids_follow_time = ? WHERE id = 1").run(
        clock,
        clockMs,
        JSON.stringify(counts),
        idsFollowTime ? 1 : 0,
      );
    }
    if (imported) this.#showTrends(clockMs);
    const trends = db
      .query<{ name: string }, [string]>("SELECT name FROM trends WHERE woeid = ? ORDER BY rank LIMIT 10")
      .all(WORLDWIDE_WOEID)
      .map(({ name }) => name);
    return { users, tweets, clock, trends };
  }

  /** An imported world's trends and showcase, from what it holds now. */
  #showTrends(clockMs: number): void {
    const db = this.#db;
    const hashtags = db
      .query<HashtagCount, [number, number]>(
        `SELECT max(json_extract(h.value, '$.tag')) AS tag, count(DISTINCT t.id) AS tweets
         FROM tweets t, json_each(t.extra, '$.entities.hashtags') h
         WHERE t.created_ms > ? AND t.author_protected = 0
         GROUP BY lower(json_extract(h.value, '$.tag')) ORDER BY tweets DESC, tag LIMIT ?`,
      )
      .all(clockMs - TRENDS_WINDOW_MS, MAX_IMPORTED_TRENDS);
    const trends = importedTrends(hashtags);
    db.query("DELETE FROM trends").run();
    const insert = db.query("INSERT INTO trends (woeid, rank, name, query, tweet_count) VALUES (?, ?, ?, ?, ?)");
    for (const trend of trends) insert.run(trend.woeid, trend.rank, trend.name, trend.query, trend.tweet_count);
    const star = db
      .query<{ username: string }, []>(
        `SELECT u.username FROM users u
         WHERE EXISTS (SELECT 1 FROM tweets t WHERE t.author_id = u.id AND t.author_protected = 0)
         ORDER BY json_extract(u.doc, '$.follower_count') DESC, u.id LIMIT 1`,
      )
      .get();
    db.query("UPDATE world_meta SET showcase = ? WHERE id = 1").run(importedShowcase(star?.username, trends));
  }
}
