// Turns the generator's records into the world's rows, with the same derived columns SQLite's writer
// computes (packages/store-sqlite/src/world/writer.ts), and sends them as multi-row INSERTs of a few
// thousand rows each. The generator is synchronous, so inserts are not awaited one by one: they queue
// on the caller's connection (one transaction) and `finished()` waits for all of them.

import { type Tweet, tokenize, type UserLookup } from "@social/core";
import type { WorldRecord, WorldSink } from "@social/fixtures";
import type { TransactionSQL } from "bun";
import { asciiFold, tweetExtra } from "./rows.ts";
import type { WorldTable } from "./schema.ts";

export type WorldCounts = Record<WorldRecord["kind"], number>;

export interface WorldMeta {
  seed: string;
  clock: string;
  counts: WorldCounts;
}

const HOUR_MS = 3_600_000;
/** Community relevance halves with every day of age. */
const RELEVANCE_HALF_LIFE_HOURS = 24;

/**
 * Likes and retweets weighted by freshness against the world's clock. SQLite's writer computes the same
 * number; the store conformance suite compares the relevance pages of both, cursors included.
 */
export function communityRelevance(tweet: Tweet, clockMs: number): number {
  const ageHours = Math.max(0, clockMs - Date.parse(tweet.created_at)) / HOUR_MS;
  return (tweet.like_count + tweet.retweet_count) * 0.5 ** (ageHours / RELEVANCE_HALF_LIFE_HOURS);
}

/** PostgreSQL takes at most 65,535 parameters in one statement; a chunk stays below that. */
const MAX_PARAMETERS = 60_000;

type Row = Record<string, string | number | boolean | string[] | null>;

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
  readonly #tx: TransactionSQL;
  readonly #pending = new Map<WorldTable, Row[]>();
  readonly #sent: Promise<unknown>[] = [];
  readonly #onTweetsWritten: (tweets: number) => void;
  #tweetsInserted = 0;
  // Follows need both sides' verified flag and tweets their author's protected flag; users arrive before
  // anything that refers to them, so these are kept rather than queried per row.
  readonly #users = new Set<number>();
  readonly #verified = new Set<number>();
  readonly #protected = new Set<number>();
  // Whether every tweet so far came with a larger id and no earlier time than the one before it, which
  // lets search turn dates into id bounds.
  #idsFollowTime = true;
  #lastTweet = { id: -1, createdMs: Number.NEGATIVE_INFINITY };
  #begun?: Begun;
  readonly #counts = emptyCounts();

  /** `onTweetsWritten`: told how many tweets the database holds whenever an insert of tweets completes. */
  constructor(tx: TransactionSQL, onTweetsWritten: (tweets: number) => void = () => {}) {
    this.#tx = tx;
    this.#onTweetsWritten = onTweetsWritten;
  }

  begin(meta: { seed: string; clock: string; tweets: number }): void {
    this.#begun = { seed: meta.seed, clock: meta.clock, clockMs: Date.parse(meta.clock) };
  }

  write(batch: readonly WorldRecord[]): void {
    for (const record of batch) this.#writeRecord(record);
  }

  end(): void {
    const begun = this.#started();
    for (const table of this.#pending.keys()) this.#flush(table);
    this.#add("world_meta", {
      id: 1,
      seed: begun.seed,
      clock: begun.clock,
      clock_ms: begun.clockMs,
      counts: JSON.stringify(this.#counts),
      ids_follow_time: this.#idsFollowTime,
    });
    this.#flush("world_meta");
  }

  /** Resolves once every insert sent so far has completed; rejects with the first that failed. */
  async finished(): Promise<void> {
    await Promise.all(this.#sent);
  }

  #started(): Begun {
    if (!this.#begun) throw new Error("WorldWriter: begin() must be called before anything else");
    return this.#begun;
  }

  #add(table: WorldTable, row: Row): void {
    let rows = this.#pending.get(table);
    if (rows === undefined) {
      rows = [];
      this.#pending.set(table, rows);
    }
    rows.push(row);
    if (rows.length * Object.keys(row).length >= MAX_PARAMETERS) this.#flush(table);
  }

  #flush(table: WorldTable): void {
    const rows = this.#pending.get(table);
    if (rows === undefined || rows.length === 0) return;
    this.#pending.set(table, []);
    const tx = this.#tx;
    const insert = tx`INSERT INTO ${tx(table)} ${tx(rows)}`;
    this.#sent.push(table === "tweets" ? insert.then(() => this.#tweetsWritten(rows.length)) : insert);
  }

  #tweetsWritten(tweets: number): void {
    this.#tweetsInserted += tweets;
    this.#onTweetsWritten(this.#tweetsInserted);
  }

  #writeRecord(record: WorldRecord): void {
    this.#counts[record.kind]++;
    switch (record.kind) {
      case "user":
        this.#writeUser(record.user);
        return;
      case "follow": {
        const followerId = Number(record.followerId);
        const followeeId = Number(record.followeeId);
        this.#add("follows", {
          follower_id: followerId,
          created_ms: Date.parse(record.createdAt),
          followee_id: followeeId,
          follower_verified: this.#verified.has(followerId),
          followee_verified: this.#verified.has(followeeId),
        });
        return;
      }
      case "tweet":
        this.#writeTweet(record.tweet, record.communityId);
        return;
      case "list":
        this.#add("lists", {
          id: Number(record.list.id),
          owner_id: Number(record.list.ownerId),
          name: record.list.name,
          description: record.list.description,
          created_ms: Date.parse(record.list.createdAt),
        });
        return;
      case "list_member":
      case "list_subscriber":
        this.#add(record.kind === "list_member" ? "list_members" : "list_subscribers", {
          list_id: Number(record.listId),
          created_ms: Date.parse(record.createdAt),
          user_id: Number(record.userId),
        });
        return;
      case "community": {
        const { id, name, description, member_count } = record.community;
        this.#add("communities", {
          id: Number(id),
          name,
          description,
          member_count,
          created_ms: Date.parse(record.createdAt),
          search_tokens: [...new Set([...tokenize(name), ...tokenize(description)])],
        });
        return;
      }
      case "community_member":
        this.#add("community_members", {
          community_id: Number(record.communityId),
          created_ms: Date.parse(record.createdAt),
          user_id: Number(record.userId),
          role: record.role,
        });
        return;
      case "trend":
        this.#add("trends", { ...record.trend });
        return;
      case "article":
        this.#add("articles", {
          tweet_id: Number(record.article.tweet_id),
          author_id: Number(record.authorId),
          doc: JSON.stringify(record.article),
        });
        return;
    }
  }

  #writeUser(lookup: UserLookup): void {
    const { status, ...user } = lookup;
    const id = Number(user.id);
    this.#add("users", {
      id,
      username: user.username,
      username_key: asciiFold(user.username),
      status,
      doc: JSON.stringify(user),
    });
    this.#users.add(id);
    if (user.verified) this.#verified.add(id);
    if (user.protected) this.#protected.add(id);
  }

  #writeTweet(tweet: Tweet, communityId: string | undefined): void {
    const id = Number(tweet.id);
    const authorId = Number(tweet.author_id);
    if (!this.#users.has(authorId))
      throw new Error(`WorldWriter: tweet ${tweet.id} refers to unknown user ${authorId}`);
    const createdMs = Date.parse(tweet.created_at);
    if (id <= this.#lastTweet.id || createdMs < this.#lastTweet.createdMs) this.#idsFollowTime = false;
    this.#lastTweet = { id, createdMs };
    const reference = (type: string) => tweet.referenced_tweets?.find((ref) => ref.type === type)?.id;
    const repliedTo = reference("replied_to");
    const quoted = tweet.quoted_tweet_id ?? reference("quoted");
    const retweeted = reference("retweeted");
    this.#add("tweets", {
      id,
      author_id: authorId,
      created_ms: createdMs,
      conversation_id: Number(tweet.conversation_id),
      lang: tweet.lang,
      text: tweet.text,
      possibly_sensitive: tweet.possibly_sensitive,
      like_count: tweet.like_count,
      retweet_count: tweet.retweet_count,
      reply_count: tweet.reply_count,
      quote_count: tweet.quote_count,
      bookmark_count: tweet.bookmark_count,
      is_quote_status: tweet.is_quote_status,
      is_reply: tweet.in_reply_to_user_id !== undefined,
      has_media: (tweet.media?.length ?? 0) > 0,
      has_links: tweet.entities.urls.length > 0,
      reply_to_id: repliedTo === undefined ? null : Number(repliedTo),
      quoted_id: quoted === undefined ? null : Number(quoted),
      retweeted_id: retweeted === undefined ? null : Number(retweeted),
      extra: JSON.stringify(tweetExtra(tweet)),
      author_protected: this.#protected.has(authorId),
    });
    if (communityId !== undefined) {
      this.#add("community_tweets", {
        community_id: Number(communityId),
        tweet_id: id,
        created_ms: createdMs,
        like_count: tweet.like_count,
        relevance: communityRelevance(tweet, this.#started().clockMs),
      });
    }
  }
}
