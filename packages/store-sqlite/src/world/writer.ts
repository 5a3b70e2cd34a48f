// Streams the generator's records into the world's tables. Each batch is one transaction unless the
// caller already holds one (as buildWorld does), every statement is prepared once, and the search index
// is filled by explicit inserts: FTS5 triggers cost three to four times as much in bulk.
import type { Database } from "bun:sqlite";
import type { Tweet, UserLookup } from "@social/core";
import type { WorldRecord, WorldSink } from "@social/fixtures";
import { authorToken, flagsText, langToken } from "../search/fts-columns.ts";
import { tweetExtra } from "./rows.ts";

export type WorldCounts = Record<WorldRecord["kind"], number>;

export interface WorldMeta {
  seed: string;
  clock: string;
  counts: WorldCounts;
}

const HOUR_MS = 3_600_000;
/** Community relevance halves with every day of age. */
const RELEVANCE_HALF_LIFE_HOURS = 24;

/** Likes and retweets weighted by freshness against the world's clock. */
export function communityRelevance(tweet: Tweet, clockMs: number): number {
  const ageHours = Math.max(0, clockMs - Date.parse(tweet.created_at)) / HOUR_MS;
  return (tweet.like_count + tweet.retweet_count) * 0.5 ** (ageHours / RELEVANCE_HALF_LIFE_HOURS);
}

function emptyCounts(): WorldCounts {
  return {
    user: 0,
    follow: 0,
    tweet: 0,
    list: 0,
    list_member: 0,
    list_subscriber: 0,
    community: 0,
    community_member: 0,
    trend: 0,
    article: 0,
  };
}

interface Begun {
  seed: string;
  clock: string;
  clockMs: number;
}

export class WorldWriter implements WorldSink {
  readonly #db: Database;
  readonly #insert: ReturnType<typeof prepareInserts>;
  // The search index needs each tweet's author username, follows need both sides' verified flag and
  // tweets their author's protected flag; users arrive before anything that refers to them, so these
  // are kept rather than queried per row.
  readonly #usernames = new Map<number, string>();
  readonly #verified = new Set<number>();
  readonly #protected = new Set<number>();
  readonly #langTokens = new Map<string, string>();
  // Whether every tweet so far came with a larger id and no earlier time than the one before it, which
  // lets search turn dates into id bounds.
  #idsFollowTime = true;
  #lastTweet = { id: -1, createdMs: Number.NEGATIVE_INFINITY };
  #begun?: Begun;
  readonly #counts = emptyCounts();

  constructor(db: Database) {
    this.#db = db;
    this.#insert = prepareInserts(db);
  }

  begin(meta: { seed: string; clock: string; tweets: number }): void {
    this.#begun = { seed: meta.seed, clock: meta.clock, clockMs: Date.parse(meta.clock) };
  }

  write(batch: readonly WorldRecord[]): void {
    // Inside the caller's transaction a batch is written as is: a savepoint per batch would make FTS5
    // flush a small index segment each time, and merging those costs more than the inserts.
    if (this.#db.inTransaction) this.#writeAll(batch);
    else this.#db.transaction(() => this.#writeAll(batch))();
  }

  end(): void {
    const begun = this.#started();
    this.#insert.meta.run(
      begun.seed,
      begun.clock,
      begun.clockMs,
      JSON.stringify(this.#counts),
      this.#idsFollowTime ? 1 : 0,
    );
  }

  /** What has been written so far. */
  get counts(): Readonly<WorldCounts> {
    return this.#counts;
  }

  #started(): Begun {
    if (!this.#begun) throw new Error("WorldWriter: begin() must be called before anything else");
    return this.#begun;
  }

  #writeAll(batch: readonly WorldRecord[]): void {
    for (const record of batch) this.#writeRecord(record);
  }

  #writeRecord(record: WorldRecord): void {
    const insert = this.#insert;
    this.#counts[record.kind]++;
    switch (record.kind) {
      case "user":
        this.#writeUser(record.user);
        return;
      case "follow": {
        const followerId = Number(record.followerId);
        const followeeId = Number(record.followeeId);
        insert.follow.run(
          followerId,
          Date.parse(record.createdAt),
          followeeId,
          this.#verified.has(followerId) ? 1 : 0,
          this.#verified.has(followeeId) ? 1 : 0,
        );
        return;
      }
      case "tweet":
        this.#writeTweet(record.tweet, record.communityId);
        return;
      case "list":
        insert.list.run(
          Number(record.list.id),
          Number(record.list.ownerId),
          record.list.name,
          record.list.description,
          Date.parse(record.list.createdAt),
        );
        return;
      case "list_member":
        insert.listMember.run(Number(record.listId), Date.parse(record.createdAt), Number(record.userId));
        return;
      case "list_subscriber":
        insert.listSubscriber.run(Number(record.listId), Date.parse(record.createdAt), Number(record.userId));
        return;
      case "community": {
        const { id, name, description, member_count } = record.community;
        insert.community.run(Number(id), name, description, member_count, Date.parse(record.createdAt));
        insert.communitySearch.run(Number(id), name, description);
        return;
      }
      case "community_member":
        insert.communityMember.run(
          Number(record.communityId),
          Date.parse(record.createdAt),
          Number(record.userId),
          record.role,
        );
        return;
      case "trend": {
        const { woeid, rank, name, query, tweet_count } = record.trend;
        insert.trend.run(woeid, rank, name, query, tweet_count);
        return;
      }
      case "article":
        insert.article.run(Number(record.article.tweet_id), Number(record.authorId), JSON.stringify(record.article));
        return;
    }
  }

  #writeUser(lookup: UserLookup): void {
    const { status, ...user } = lookup;
    const id = Number(user.id);
    this.#insert.user.run(id, user.username, status, JSON.stringify(user));
    const token = authorToken(user.username);
    if (token === undefined) throw new Error(`WorldWriter: user ${user.id} has an invalid username`);
    this.#usernames.set(id, token);
    if (user.verified) this.#verified.add(id);
    if (user.protected) this.#protected.add(id);
  }

  #writeTweet(tweet: Tweet, communityId: string | undefined): void {
    const id = Number(tweet.id);
    const authorId = Number(tweet.author_id);
    const author = this.#usernames.get(authorId);
    if (author === undefined) throw new Error(`WorldWriter: tweet ${tweet.id} refers to unknown user ${authorId}`);
    const createdMs = Date.parse(tweet.created_at);
    if (id <= this.#lastTweet.id || createdMs < this.#lastTweet.createdMs) this.#idsFollowTime = false;
    this.#lastTweet = { id, createdMs };
    const reference = (type: string) => tweet.referenced_tweets?.find((ref) => ref.type === type)?.id;
    const repliedTo = reference("replied_to");
    const quoted = tweet.quoted_tweet_id ?? reference("quoted");
    const retweeted = reference("retweeted");
    const isReply = tweet.in_reply_to_user_id !== undefined;
    const hasLinks = tweet.entities.urls.length > 0;
    const authorProtected = this.#protected.has(authorId);
    this.#insert.tweet.run(
      id,
      authorId,
      createdMs,
      Number(tweet.conversation_id),
      tweet.lang,
      tweet.text,
      tweet.possibly_sensitive ? 1 : 0,
      tweet.like_count,
      tweet.retweet_count,
      tweet.reply_count,
      tweet.quote_count,
      tweet.bookmark_count,
      tweet.is_quote_status ? 1 : 0,
      isReply ? 1 : 0,
      (tweet.media?.length ?? 0) > 0 ? 1 : 0,
      hasLinks ? 1 : 0,
      repliedTo === undefined ? null : Number(repliedTo),
      quoted === undefined ? null : Number(quoted),
      retweeted === undefined ? null : Number(retweeted),
      JSON.stringify(tweetExtra(tweet)),
      authorProtected ? 1 : 0,
    );
    // Search must never find a protected account's tweets (see hideProtectedAuthors in schema.ts).
    if (!authorProtected) {
      const flags = flagsText({ hasLinks, isReply });
      this.#insert.tweetSearch.run(id, tweet.text, author, this.#langToken(tweet.lang), flags);
    }
    if (communityId !== undefined) {
      this.#insert.communityTweet.run(
        Number(communityId),
        id,
        createdMs,
        tweet.like_count,
        communityRelevance(tweet, this.#started().clockMs),
      );
    }
  }

  #langToken(lang: string): string {
    let token = this.#langTokens.get(lang);
    if (token === undefined) {
      token = langToken(lang);
      this.#langTokens.set(lang, token);
    }
    return token;
  }
}

function prepareInserts(db: Database) {
  return {
    meta: db.prepare(
      "INSERT INTO world_meta (id, seed, clock, clock_ms, counts, ids_follow_time) VALUES (1, ?, ?, ?, ?, ?)",
    ),
    user: db.prepare("INSERT INTO users (id, username, status, doc) VALUES (?, ?, ?, ?)"),
    follow: db.prepare(
      "INSERT INTO follows (follower_id, created_ms, followee_id, follower_verified, followee_verified) VALUES (?, ?, ?, ?, ?)",
    ),
    tweet: db.prepare(
      `INSERT INTO tweets (id, author_id, created_ms, conversation_id, lang, text, possibly_sensitive, like_count,
        retweet_count, reply_count, quote_count, bookmark_count, is_quote_status, is_reply, has_media, has_links,
        reply_to_id, quoted_id, retweeted_id, extra, author_protected)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    tweetSearch: db.prepare("INSERT INTO tweets_fts (rowid, text, author, lang, flags) VALUES (?, ?, ?, ?, ?)"),
    list: db.prepare("INSERT INTO lists (id, owner_id, name, description, created_ms) VALUES (?, ?, ?, ?, ?)"),
    listMember: db.prepare("INSERT INTO list_members (list_id, created_ms, user_id) VALUES (?, ?, ?)"),
    listSubscriber: db.prepare("INSERT INTO list_subscribers (list_id, created_ms, user_id) VALUES (?, ?, ?)"),
    community: db.prepare(
      "INSERT INTO communities (id, name, description, member_count, created_ms) VALUES (?, ?, ?, ?, ?)",
    ),
    communitySearch: db.prepare("INSERT INTO communities_fts (rowid, name, description) VALUES (?, ?, ?)"),
    communityMember: db.prepare(
      "INSERT INTO community_members (community_id, created_ms, user_id, role) VALUES (?, ?, ?, ?)",
    ),
    communityTweet: db.prepare(
      "INSERT INTO community_tweets (community_id, tweet_id, created_ms, like_count, relevance) VALUES (?, ?, ?, ?, ?)",
    ),
    trend: db.prepare("INSERT INTO trends (woeid, rank, name, query, tweet_count) VALUES (?, ?, ?, ?, ?)"),
    article: db.prepare("INSERT INTO articles (tweet_id, author_id, doc) VALUES (?, ?, ?)"),
  };
}
