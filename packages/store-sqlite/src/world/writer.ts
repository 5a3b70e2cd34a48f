// Streams the generator's records into the world's tables. Each batch is one transaction unless the
// caller already holds one (as buildWorld does), every statement is prepared once, and the search index
// is filled by explicit inserts: FTS5 triggers cost three to four times as much in bulk.
import type { Database } from "bun:sqlite";
import type { Tweet, UserLookup, WorldRecord, WorldSink } from "@social/core";
import {
  authorToken,
  boundId,
  langToken,
  searchTags,
  tweetMentionNames,
  tweetMentions,
  type WorldCounts,
  WorldDerivation,
} from "@social/store-common";
import { TWEET_INSERT_COLUMNS, tweetValues } from "./rows.ts";

export { communityRelevance, type WorldCounts, type WorldMeta } from "@social/store-common";

export class WorldWriter implements WorldSink {
  readonly #db: Database;
  readonly #insert: ReturnType<typeof prepareInserts>;
  readonly #world = new WorldDerivation();
  // The search index needs each tweet's author username, kept rather than queried per row.
  readonly #usernames = new Map<string, string>();
  readonly #langTokens = new Map<string, string>();

  constructor(db: Database) {
    this.#db = db;
    this.#insert = prepareInserts(db);
  }

  begin(meta: { seed: string; clock: string; tweets: number }): void {
    this.#world.begin(meta);
  }

  write(batch: readonly WorldRecord[]): void {
    // Inside the caller's transaction a batch is written as is: a savepoint per batch would make FTS5
    // flush a small index segment each time, and merging those costs more than the inserts.
    if (this.#db.inTransaction) this.#writeAll(batch);
    else this.#db.transaction(() => this.#writeAll(batch))();
  }

  end(): void {
    const meta = this.#world.meta();
    this.#insert.meta.run(meta.seed, meta.clock, meta.clock_ms, meta.counts, meta.ids_follow_time ? 1 : 0);
  }

  /** What has been written so far. */
  get counts(): Readonly<WorldCounts> {
    return this.#world.counts;
  }

  #writeAll(batch: readonly WorldRecord[]): void {
    for (const record of batch) this.#writeRecord(record);
  }

  #writeRecord(record: WorldRecord): void {
    const insert = this.#insert;
    this.#world.count(record);
    switch (record.kind) {
      case "user":
        this.#writeUser(record.user);
        return;
      case "follow": {
        const row = this.#world.follow(record);
        insert.follow.run(
          row.follower_id,
          row.created_ms,
          row.followee_id,
          row.follower_verified ? 1 : 0,
          row.followee_verified ? 1 : 0,
        );
        return;
      }
      case "tweet":
        this.#writeTweet(record.tweet, record.communityId);
        return;
      case "list":
        insert.list.run(
          boundId(record.list.id),
          boundId(record.list.ownerId),
          record.list.name,
          record.list.description,
          Date.parse(record.list.createdAt),
        );
        return;
      case "list_member":
        insert.listMember.run(boundId(record.listId), Date.parse(record.createdAt), boundId(record.userId));
        return;
      case "list_subscriber":
        insert.listSubscriber.run(boundId(record.listId), Date.parse(record.createdAt), boundId(record.userId));
        return;
      case "community": {
        const { id, name, description, member_count } = record.community;
        insert.community.run(boundId(id), name, description, member_count, Date.parse(record.createdAt));
        insert.communitySearch.run(boundId(id), name, description);
        return;
      }
      case "community_member":
        insert.communityMember.run(
          boundId(record.communityId),
          Date.parse(record.createdAt),
          boundId(record.userId),
          record.role,
        );
        return;
      case "trend": {
        const { woeid, rank, name, query, tweet_count } = record.trend;
        insert.trend.run(woeid, rank, name, query, tweet_count);
        return;
      }
      case "article":
        insert.article.run(boundId(record.article.tweet_id), boundId(record.authorId), JSON.stringify(record.article));
        return;
    }
  }

  #writeUser(lookup: UserLookup): void {
    const row = this.#world.user(lookup);
    this.#insert.user.run(row.id, row.username, row.status, row.doc);
    const token = authorToken(row.username);
    if (token === undefined) throw new Error(`WorldWriter: user ${lookup.id} has an invalid username`);
    this.#usernames.set(lookup.id, token);
  }

  #writeTweet(tweet: Tweet, communityId: string | undefined): void {
    const row = this.#world.tweet(tweet);
    this.#insert.tweet.run(...tweetValues(row));
    for (const mention of tweetMentions(tweet)) this.#insert.mention.run(mention.tweet_id, mention.user_id);
    for (const name of tweetMentionNames(tweet)) this.#insert.mentionName.run(name.tweet_id, name.username_key);
    // Search must never find a protected account's tweets (see hideProtectedAuthors in schema.ts).
    if (!row.author_protected) {
      // Every known author has a token: #writeUser stops the build at a username without one.
      const author = this.#usernames.get(tweet.author_id) ?? "";
      const flags = searchTags(this.#world.searchDocument(tweet)).join(" ");
      this.#insert.tweetSearch.run(row.id, row.text, author, this.#langToken(row.lang), flags);
    }
    if (communityId !== undefined) {
      const c = this.#world.communityTweet(communityId, tweet, row);
      this.#insert.communityTweet.run(c.community_id, c.tweet_id, c.created_ms, c.like_count, c.relevance);
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
    tweet: db.prepare(`INSERT INTO tweets (${TWEET_INSERT_COLUMNS}) VALUES (${"?, ".repeat(20)}?)`),
    mention: db.prepare("INSERT INTO tweet_mentions (tweet_id, user_id) VALUES (?, ?)"),
    mentionName: db.prepare("INSERT INTO tweet_mention_names (tweet_id, username_key) VALUES (?, ?)"),
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
