// Tweets: lookups by id, the quotes and retweeters of a tweet, and the article a tweet carries.

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
import type { SQL } from "bun";
import { type TweetRow, VISIBLE } from "../world/rows.ts";
import { byIds, existingId, itemsByIds, pageOf, rowById, statement, tweetPage, tweetsNewestFirst } from "./reads.ts";

function statements(sql: SQL) {
  return {
    tweet: statement<TweetRow, [StoredId]>(
      sql,
      `SELECT ${TWEET_COLUMNS} FROM tweets t WHERE t.id = $1::bigint AND ${VISIBLE}`,
    ),
    tweets: byIds<TweetRow>(sql, (id) => `SELECT ${TWEET_COLUMNS} FROM tweets t WHERE t.id ${id} AND ${VISIBLE}`),
    tweetExists: statement<object, [StoredId]>(sql, `SELECT 1 FROM tweets t WHERE t.id = $1::bigint AND ${VISIBLE}`),
    quotes: tweetsNewestFirst(sql, "t.quoted_id = $1::bigint"),
    // The cursor is the retweet's id.
    retweeters: statement<UserRow & { k1: string }, [tweet: StoredId, afterId: BoundKey, limit: number]>(
      sql,
      `SELECT ${USER_COLUMNS}, t.id AS k1 FROM tweets t JOIN users u ON u.id = t.author_id
       WHERE t.retweeted_id = $1::bigint AND ${VISIBLE} AND t.id < $2::bigint ORDER BY t.id DESC LIMIT $3`,
    ),
    article: statement<UserRow & { article: string }, [StoredId]>(
      sql,
      `SELECT a.doc AS article, ${USER_COLUMNS} FROM articles a JOIN tweets t ON t.id = a.tweet_id
       JOIN users u ON u.id = a.author_id WHERE a.tweet_id = $1::bigint AND ${VISIBLE}`,
    ),
  };
}

export class TweetReads {
  readonly #q: ReturnType<typeof statements>;

  constructor(sql: SQL) {
    this.#q = statements(sql);
  }

  byIds(ids: readonly string[]): Promise<Tweet[]> {
    return itemsByIds(this.#q.tweets, ids, tweetFromRow);
  }

  /** The visible tweet `id` as stored. */
  row(id: string): Promise<TweetRow | undefined> {
    return rowById(this.#q.tweet, id);
  }

  async quotes(tweetId: string, page: PageRequest): Promise<Page<Tweet> | undefined> {
    const id = await existingId(this.#q.tweetExists, tweetId);
    return id === undefined ? undefined : tweetPage(this.#q.quotes, id, page);
  }

  async retweeters(tweetId: string, page: PageRequest): Promise<Page<User> | undefined> {
    const id = await existingId(this.#q.tweetExists, tweetId);
    if (id === undefined) return undefined;
    const [before] = keysetAfter<[BoundKey]>(page.after, ["id"]);
    const rows = await this.#q.retweeters.all(id, before, page.size + 1);
    return pageOf(rows, page.size, userFromRow, (row) => [idKey(row.k1)]);
  }

  async article(tweetId: string): Promise<Article | undefined> {
    const row = await rowById(this.#q.article, tweetId);
    if (row === undefined) return undefined;
    return { ...(JSON.parse(row.article) as Omit<Article, "author">), author: articleAuthor(userFromRow(row)) };
  }
}
