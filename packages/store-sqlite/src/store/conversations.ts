// Conversations: the replies below a tweet, and the self-thread of a conversation's root author.
import type { Database } from "bun:sqlite";
import type { Page, PageRequest, SelfThread, Tweet } from "@social/core";
import { selfChain, TWEET_COLUMNS } from "@social/store-kit";
import { type TweetRow, VISIBLE } from "../world/rows.ts";
import { type KeyedTweetRow, rowById, type TweetWalkParams, tweetPage } from "./reads.ts";
import type { TweetReads } from "./tweets.ts";

function statements(db: Database) {
  return {
    tweetConversation: db.query<{ id: number; root: number }, [number]>(
      `SELECT t.id, t.conversation_id AS root FROM tweets t WHERE t.id = ? AND ${VISIBLE}`,
    ),
    conversationReplies: db.query<KeyedTweetRow, TweetWalkParams>(
      `SELECT ${TWEET_COLUMNS}, t.id AS k1 FROM tweets t WHERE t.conversation_id = ? AND t.reply_to_id IS NOT NULL
       AND ${VISIBLE} AND t.id > ? ORDER BY t.id LIMIT ?`,
    ),
    // Replies have larger ids than what they reply to, so every descendant comes after the tweet itself.
    descendants: db.query<KeyedTweetRow, TweetWalkParams>(
      `WITH RECURSIVE below (id) AS (
         SELECT id FROM tweets WHERE reply_to_id = ?
         UNION ALL
         SELECT r.id FROM tweets r JOIN below b ON r.reply_to_id = b.id
       )
       SELECT ${TWEET_COLUMNS}, t.id AS k1 FROM tweets t WHERE t.id IN below AND ${VISIBLE} AND t.id > ? ORDER BY t.id LIMIT ?`,
    ),
    conversationByAuthor: db.query<
      TweetRow & { reply_to_id: number | null },
      [conversation: number, fromId: number, author: number]
    >(
      `SELECT ${TWEET_COLUMNS}, t.reply_to_id FROM tweets t
       WHERE t.conversation_id = ? AND t.id >= ? AND t.author_id = ? AND ${VISIBLE} ORDER BY t.id`,
    ),
    selfParent: db.query<TweetRow, [number]>(
      `SELECT ${TWEET_COLUMNS} FROM tweets c JOIN tweets t ON t.id = c.reply_to_id AND t.author_id = c.author_id
       WHERE c.id = ? AND ${VISIBLE}`,
    ),
  };
}

export class ConversationReads {
  readonly #tweets: TweetReads;
  readonly #q: ReturnType<typeof statements>;

  constructor(db: Database, tweets: TweetReads) {
    this.#tweets = tweets;
    this.#q = statements(db);
  }

  conversation(tweetId: string, page: PageRequest): Page<Tweet> | undefined {
    const tweet = rowById(this.#q.tweetConversation, tweetId);
    if (tweet === undefined) return undefined;
    // Below a conversation's root lies the whole conversation, which its index lists in id order; below
    // any other tweet, the reply tree has to be walked.
    const below = tweet.id === tweet.root ? this.#q.conversationReplies : this.#q.descendants;
    return tweetPage(below, tweet.id, page, tweet.id);
  }

  selfThread(tweetId: string, max: number): SelfThread | undefined {
    const focal = this.#tweets.row(tweetId);
    if (focal === undefined) return undefined;
    const root = this.#tweets.row(String(focal.conversation_id));
    // Without its root the thread starts at the top of the focal author's own chain above the focal tweet.
    const start = root ?? this.#selfChainTop(focal);
    const { tweets, longer } = selfChain(
      this.#q.conversationByAuthor.iterate(start.conversation_id, start.id, start.author_id),
      start.id,
      max,
    );
    return {
      conversationId: String(focal.conversation_id),
      authorId: String(start.author_id),
      complete: root !== undefined && !longer,
      tweets,
    };
  }

  #selfChainTop(tweet: TweetRow): TweetRow {
    let top = tweet;
    for (;;) {
      const parent = this.#q.selfParent.get(top.id);
      if (parent === null) return top;
      top = parent;
    }
  }
}
