// Tweets: lookups by id, the quotes and retweeters of a tweet, and the article a tweet carries.
import type { Database } from "bun:sqlite";
import { type Article, articleAuthor, type Page, type PageRequest, type Tweet, type User } from "@social/core";
import {
  type BoundKey,
  idKey,
  keysetAfter,
  type StoredId,
  TWEET_COLUMNS,
  tweetFromRow,
  USER_COLUMNS,
  type UserRow,
  userFromRow,
} from "@social/store-common";
import { type TweetRow, VISIBLE } from "../world/rows.ts";
import { existingId, itemsByIds, pageOf, rowById, tweetPage, tweetsNewestFirst } from "./reads.ts";

function statements(db: Database) {
  return {
    tweet: db.query<TweetRow, [StoredId]>(`SELECT ${TWEET_COLUMNS} FROM tweets t WHERE t.id = ? AND ${VISIBLE}`),
    tweetExists: db.query<object, [StoredId]>(`SELECT 1 FROM tweets t WHERE t.id = ? AND ${VISIBLE}`),
    quotes: tweetsNewestFirst(db, "t.quoted_id = ?1"),
    // The cursor is the retweet's id.
    retweeters: db.query<UserRow & { k1: string }, [tweet: StoredId, afterId: BoundKey, limit: number]>(
      `SELECT ${USER_COLUMNS}, CAST(t.id AS TEXT) AS k1 FROM tweets t JOIN users u ON u.id = t.author_id
       WHERE t.retweeted_id = ? AND ${VISIBLE} AND t.id < ? ORDER BY t.id DESC LIMIT ?`,
    ),
    article: db.query<UserRow & { article: string }, [StoredId]>(
      `SELECT a.doc AS article, ${USER_COLUMNS} FROM articles a JOIN tweets t ON t.id = a.tweet_id
       JOIN users u ON u.id = a.author_id WHERE a.tweet_id = ? AND ${VISIBLE}`,
    ),
  };
}

export class TweetReads {
  readonly #q: ReturnType<typeof statements>;

  constructor(db: Database) {
    this.#q = statements(db);
  }

  byIds(ids: readonly string[]): Tweet[] {
    return itemsByIds(this.#q.tweet, ids, tweetFromRow);
  }

  /** The visible tweet `id` as stored. */
  row(id: string): TweetRow | undefined {
    return rowById(this.#q.tweet, id);
  }

  quotes(tweetId: string, page: PageRequest): Page<Tweet> | undefined {
    const id = existingId(this.#q.tweetExists, tweetId);
    return id === undefined ? undefined : tweetPage(this.#q.quotes, id, page);
  }

  retweeters(tweetId: string, page: PageRequest): Page<User> | undefined {
    const id = existingId(this.#q.tweetExists, tweetId);
    if (id === undefined) return undefined;
    const [before] = keysetAfter<[BoundKey]>(page.after, ["id"]);
    const rows = this.#q.retweeters.all(id, before, page.size + 1);
    return pageOf(rows, page.size, userFromRow, (row) => [idKey(row.k1)]);
  }

  article(tweetId: string): Article | undefined {
    const row = rowById(this.#q.article, tweetId);
    if (row === undefined) return undefined;
    return { ...(JSON.parse(row.article) as Omit<Article, "author">), author: articleAuthor(userFromRow(row)) };
  }
}
