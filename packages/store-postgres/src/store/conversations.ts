// Conversations: the replies below a tweet, and the self-thread of a conversation's root author.

import type { Page, PageRequest, SelfThread, Tweet } from "@social/core";
import { boundId, type StoredId, selfChain, TWEET_COLUMNS } from "@social/store-common";
import type { SQL } from "bun";
import { type TweetRow, VISIBLE } from "../world/rows.ts";
import { rowById, statement, type TweetWalkParams, tweetPage } from "./reads.ts";
import type { TweetReads } from "./tweets.ts";

function statements(sql: SQL) {
  return {
    tweetConversation: statement<{ id: string; root: string }, [StoredId]>(
      sql,
      `SELECT t.id, t.conversation_id AS root FROM tweets t WHERE t.id = $1::bigint AND ${VISIBLE}`,
    ),
    conversationReplies: statement<TweetRow, TweetWalkParams>(
      sql,
      `SELECT ${TWEET_COLUMNS} FROM tweets t WHERE t.conversation_id = $1::bigint
       AND t.reply_to_id IS NOT NULL AND ${VISIBLE} AND t.id > $2::bigint ORDER BY t.id LIMIT $3`,
    ),
    // Replies have larger ids than what they reply to, so every descendant comes after the tweet itself.
    descendants: statement<TweetRow, TweetWalkParams>(
      sql,
      `WITH RECURSIVE below (id) AS (
         SELECT id FROM tweets WHERE reply_to_id = $1::bigint
         UNION ALL
         SELECT r.id FROM tweets r JOIN below b ON r.reply_to_id = b.id
       )
       SELECT ${TWEET_COLUMNS} FROM tweets t
       WHERE t.id IN (SELECT id FROM below) AND ${VISIBLE} AND t.id > $2::bigint ORDER BY t.id LIMIT $3`,
    ),
    conversationByAuthor: statement<
      TweetRow & { reply_to_id: string | null },
      [conversation: string, fromId: string, author: string]
    >(
      sql,
      `SELECT ${TWEET_COLUMNS}, CAST(t.reply_to_id AS TEXT) AS reply_to_id FROM tweets t
       WHERE t.conversation_id = $1::bigint AND t.id >= $2::bigint AND t.author_id = $3::bigint AND ${VISIBLE} ORDER BY t.id`,
    ),
    selfParent: statement<TweetRow, [string]>(
      sql,
      `SELECT ${TWEET_COLUMNS} FROM tweets c JOIN tweets t ON t.id = c.reply_to_id AND t.author_id = c.author_id
       WHERE c.id = $1::bigint AND ${VISIBLE}`,
    ),
  };
}

export class ConversationReads {
  readonly #tweets: TweetReads;
  readonly #q: ReturnType<typeof statements>;

  constructor(sql: SQL, tweets: TweetReads) {
    this.#tweets = tweets;
    this.#q = statements(sql);
  }

  async conversation(tweetId: string, page: PageRequest): Promise<Page<Tweet> | undefined> {
    const tweet = await rowById(this.#q.tweetConversation, tweetId);
    if (tweet === undefined) return undefined;
    // Below a conversation's root lies the whole conversation, which its index lists in id order; below
    // any other tweet, the reply tree has to be walked.
    const id = boundId(tweet.id);
    const below = tweet.id === tweet.root ? this.#q.conversationReplies : this.#q.descendants;
    return tweetPage(below, id, page, id);
  }

  async selfThread(tweetId: string, max: number): Promise<SelfThread | undefined> {
    const focal = await this.#tweets.row(tweetId);
    if (focal === undefined) return undefined;
    const root = await this.#tweets.row(focal.conversation_id);
    // Without its root the thread starts at the top of the focal author's own chain above the focal tweet.
    const start = root ?? (await this.#selfChainTop(focal));
    const { tweets, longer } = selfChain(
      await this.#q.conversationByAuthor.all(start.conversation_id, start.id, start.author_id),
      start.id,
      max,
    );
    return {
      conversationId: focal.conversation_id,
      authorId: start.author_id,
      complete: root !== undefined && !longer,
      tweets,
    };
  }

  async #selfChainTop(tweet: TweetRow): Promise<TweetRow> {
    let top = tweet;
    for (;;) {
      const parent = await this.#q.selfParent.get(top.id);
      if (parent === undefined) return top;
      top = parent;
    }
  }
}
