// Turns the generator's records into the world's rows, with the derived columns every adapter computes
// alike (WorldDerivation in @social/store-common), and sends them as multi-row INSERTs of a few
// thousand rows each. The generator is synchronous, so inserts are not awaited one by one: they queue
// on the caller's connection (one transaction) and `finished()` waits for all of them.

import { type Tweet, tokenize, type UserLookup, type WorldRecord, type WorldSink } from "@social/core";
import { boundId, tweetMentionNames, tweetMentions, WorldDerivation, type WorldTable } from "@social/store-common";
import type { TransactionSQL } from "bun";
import { searchVector } from "../search/lexemes.ts";
import { asciiFold } from "./rows.ts";

export { communityRelevance, type WorldCounts, type WorldMeta } from "@social/store-common";

/** PostgreSQL takes at most 65,535 parameters in one statement; a chunk stays below that. */
const MAX_PARAMETERS = 60_000;

type Row = Record<string, string | number | bigint | boolean | string[] | null>;

export class WorldWriter implements WorldSink {
  readonly #tx: TransactionSQL;
  readonly #pending = new Map<WorldTable, Row[]>();
  readonly #sent: Promise<unknown>[] = [];
  readonly #onTweetsWritten: (tweets: number) => void;
  #tweetsInserted = 0;
  readonly #world = new WorldDerivation();

  /** `onTweetsWritten`: told how many tweets the database holds whenever an insert of tweets completes. */
  constructor(tx: TransactionSQL, onTweetsWritten: (tweets: number) => void = () => {}) {
    this.#tx = tx;
    this.#onTweetsWritten = onTweetsWritten;
  }

  begin(meta: { seed: string; clock: string; tweets: number }): void {
    this.#world.begin(meta);
  }

  write(batch: readonly WorldRecord[]): void {
    for (const record of batch) this.#writeRecord(record);
  }

  end(): void {
    const meta = this.#world.meta();
    for (const table of this.#pending.keys()) this.#flush(table);
    this.#add("world_meta", { id: 1, ...meta });
    this.#flush("world_meta");
  }

  /** Resolves once every insert sent so far has completed; rejects with the first that failed. */
  async finished(): Promise<void> {
    await Promise.all(this.#sent);
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
    this.#world.count(record);
    switch (record.kind) {
      case "user":
        this.#writeUser(record.user);
        return;
      case "follow":
        this.#add("follows", this.#world.follow(record));
        return;
      case "tweet":
        this.#writeTweet(record.tweet, record.communityId);
        return;
      case "list":
        this.#add("lists", {
          id: boundId(record.list.id),
          owner_id: boundId(record.list.ownerId),
          name: record.list.name,
          description: record.list.description,
          created_ms: Date.parse(record.list.createdAt),
        });
        return;
      case "list_member":
      case "list_subscriber":
        this.#add(record.kind === "list_member" ? "list_members" : "list_subscribers", {
          list_id: boundId(record.listId),
          created_ms: Date.parse(record.createdAt),
          user_id: boundId(record.userId),
        });
        return;
      case "community": {
        const { id, name, description, member_count } = record.community;
        this.#add("communities", {
          id: boundId(id),
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
          community_id: boundId(record.communityId),
          created_ms: Date.parse(record.createdAt),
          user_id: boundId(record.userId),
          role: record.role,
        });
        return;
      case "trend":
        this.#add("trends", { ...record.trend });
        return;
      case "article":
        this.#add("articles", {
          tweet_id: boundId(record.article.tweet_id),
          author_id: boundId(record.authorId),
          doc: JSON.stringify(record.article),
        });
        return;
    }
  }

  #writeUser(lookup: UserLookup): void {
    const row = this.#world.user(lookup);
    this.#add("users", { ...row, username_key: asciiFold(row.username) });
  }

  #writeTweet(tweet: Tweet, communityId: string | undefined): void {
    const row = this.#world.tweet(tweet);
    // Every author is known: the derivation above stops the build at a tweet of an unknown user.
    const search_vector = searchVector(this.#world.searchDocument(tweet));
    this.#add("tweets", { ...row, search_vector });
    for (const mention of tweetMentions(tweet)) this.#add("tweet_mentions", mention);
    for (const name of tweetMentionNames(tweet)) this.#add("tweet_mention_names", name);
    if (communityId !== undefined) this.#add("community_tweets", this.#world.communityTweet(communityId, tweet, row));
  }
}
