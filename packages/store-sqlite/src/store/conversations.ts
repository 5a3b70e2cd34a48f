// Conversations: the replies below a tweet, and the self-thread of a conversation's root author.
import type { Database } from "bun:sqlite";
import type { Page, PageRequest, SelfThread, Tweet } from "@social/core";
import { boundId, type StoredId, selfChain, TWEET_COLUMNS } from "@social/store-common";
import { type TweetRow, VISIBLE } from "../world/rows.ts";
import { rowById, type TweetWalkParams, tweetPage } from "./reads.ts";
import type { TweetReads } from "./tweets.ts";

function statements(db: Database) {
  return {
    tweetConversation: db.query<{ id: string; root: string }, [StoredId]>(
      `SELECT CAST(t.id AS TEXT) AS id, CAST(t.conversation_id AS TEXT) AS root FROM tweets t
       WHERE t.id = ? AND ${VISIBLE}`,
    ),
    conversationReplies: db.query<TweetRow, TweetWalkParams>(
      `SELECT ${TWEET_COLUMNS} FROM tweets t WHERE t.conversation_id = ? AND t.reply_to_id IS NOT NULL
       AND ${VISIBLE} AND t.id > ? ORDER BY t.id LIMIT ?`,
    ),
    // Replies have larger ids than what they reply to, so every descendant comes after the tweet itself.
    descendants: db.query<TweetRow, TweetWalkParams>(
      `WITH RECURSIVE below (id) AS (
         SELECT id FROM tweets WHERE reply_to_id = ?
         UNION ALL
         SELECT r.id FROM tweets r JOIN below b ON r.reply_to_id = b.id
       )
       SELECT ${TWEET_COLUMNS} FROM tweets t WHERE t.id IN below AND ${VISIBLE} AND t.id > ? ORDER BY t.id LIMIT ?`,
    ),
    conversationByAuthor: db.query<
      TweetRow & { reply_to_id: string | null },
      [conversation: StoredId, fromId: StoredId, author: StoredId]
    >(
      `SELECT ${TWEET_COLUMNS}, CAST(t.reply_to_id AS TEXT) AS reply_to_id FROM tweets t
       WHERE t.conversation_id = ? AND t.id >= ? AND t.author_id = ? AND ${VISIBLE} ORDER BY t.id`,
    ),
    selfParent: db.query<TweetRow, [StoredId]>(
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
    const id = boundId(tweet.id);
    return tweetPage(below, id, page, id);
  }

  selfThread(tweetId: string, max: number): SelfThread | undefined {
    const focal = this.#tweets.row(tweetId);
    if (focal === undefined) return undefined;
    const root = this.#tweets.row(focal.conversation_id);
    // Without its root the thread starts at the top of the focal author's own chain above the focal tweet.
    const start = root ?? this.#selfChainTop(focal);
    const { tweets, longer } = selfChain(
      this.#q.conversationByAuthor.iterate(boundId(start.conversation_id), boundId(start.id), boundId(start.author_id)),
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

  #selfChainTop(tweet: TweetRow): TweetRow {
    let top = tweet;
    for (;;) {
      const parent = this.#q.selfParent.get(boundId(top.id));
      if (parent === null) return top;
      top = parent;
    }
  }
}
