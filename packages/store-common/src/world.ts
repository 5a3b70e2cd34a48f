// What every database adapter derives from the generator's world the same way: the counts and meta row,
// the flags copied from users onto the rows that refer to them, the tweets' derived columns and the
// communities' relevance. Adapters only turn these rows into their own inserts, so both databases hold
// the same world (the PostgreSQL world-build test compares every table column by column with SQLite's).
import { type SearchDocument, searchDocument, type Tweet, type UserLookup, type WorldRecord } from "@social/core";
import { boundId, type StoredId } from "./ids.ts";
import { tweetExtra, userDoc } from "./rows.ts";

/**
 * Every table the world fills, for wiping it before a rebuild; with them the positions of followed
 * imports, which a rebuilt world no longer holds the lines of, and the posts imports added that wait to
 * be matched against monitors, which it no longer holds.
 */
export const WORLD_TABLES = [
  "world_meta",
  "users",
  "tweets",
  "tweet_mentions",
  "tweet_mention_names",
  "follows",
  "lists",
  "list_members",
  "list_subscribers",
  "communities",
  "community_members",
  "community_tweets",
  "trends",
  "articles",
  "import_positions",
  "monitor_arrivals",
] as const;

export type WorldTable = (typeof WORLD_TABLES)[number];

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

/** Counts of a world with nothing in it. */
export function emptyCounts(): WorldCounts {
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

type FollowRecord = Extract<WorldRecord, { kind: "follow" }>;

// Rows are type aliases, not interfaces, so that they pass where a driver wants a record of columns.

/** The `world_meta` row; `counts` as the JSON it is stored as. */
export type MetaColumns = {
  seed: string;
  clock: string;
  clock_ms: number;
  counts: string;
  ids_follow_time: boolean;
};

export type UserColumns = {
  id: StoredId;
  username: string;
  status: UserLookup["status"];
  /** The User JSON without `status`. */
  doc: string;
};

export type FollowColumns = {
  follower_id: StoredId;
  created_ms: number;
  followee_id: StoredId;
  follower_verified: boolean;
  followee_verified: boolean;
};

export type TweetColumns = {
  id: StoredId;
  author_id: StoredId;
  created_ms: number;
  conversation_id: StoredId;
  lang: string;
  text: string;
  possibly_sensitive: boolean;
  like_count: number;
  retweet_count: number;
  reply_count: number;
  quote_count: number;
  bookmark_count: number;
  is_quote_status: boolean;
  is_reply: boolean;
  has_media: boolean;
  has_links: boolean;
  reply_to_id: StoredId | null;
  quoted_id: StoredId | null;
  retweeted_id: StoredId | null;
  extra: string;
  author_protected: boolean;
};

export type CommunityTweetColumns = {
  community_id: StoredId;
  tweet_id: StoredId;
  created_ms: number;
  like_count: number;
  relevance: number;
};

/** A user's row. */
export function userColumns(lookup: UserLookup): UserColumns {
  const { status, ...user } = lookup;
  return { id: boundId(user.id), username: user.username, status, doc: userDoc(user) };
}

/** A tweet's row, its references as columns; `authorProtected` is its author's protected flag. */
export function tweetColumns(tweet: Tweet, authorProtected: boolean): TweetColumns {
  const reference = (type: string) => tweet.referenced_tweets?.find((ref) => ref.type === type)?.id;
  const repliedTo = reference("replied_to");
  const quoted = tweet.quoted_tweet_id ?? reference("quoted");
  const retweeted = reference("retweeted");
  return {
    id: boundId(tweet.id),
    author_id: boundId(tweet.author_id),
    created_ms: Date.parse(tweet.created_at),
    conversation_id: boundId(tweet.conversation_id),
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
    reply_to_id: repliedTo === undefined ? null : boundId(repliedTo),
    quoted_id: quoted === undefined ? null : boundId(quoted),
    retweeted_id: retweeted === undefined ? null : boundId(retweeted),
    extra: JSON.stringify(tweetExtra(tweet)),
    author_protected: authorProtected,
  };
}

interface Begun {
  seed: string;
  clock: string;
  clockMs: number;
}

/**
 * The state a world writer keeps while the generator streams its records. Follows need both sides'
 * verified flag and tweets their author's protected flag; users arrive before anything that refers to
 * them, so these are kept rather than queried per row.
 */
export class WorldDerivation {
  /** Each user's username, for the search fields of the tweets that name them. */
  readonly #users = new Map<string, string>();
  readonly #verified = new Set<string>();
  readonly #protected = new Set<string>();
  // Whether every tweet so far came with a larger id and no earlier time than the one before it, which
  // lets search turn dates into id bounds.
  #idsFollowTime = true;
  #lastTweet = { id: -1n, createdMs: Number.NEGATIVE_INFINITY };
  #begun?: Begun;
  readonly #counts = emptyCounts();

  begin(meta: { seed: string; clock: string }): void {
    this.#begun = { seed: meta.seed, clock: meta.clock, clockMs: Date.parse(meta.clock) };
  }

  /** What has been counted so far. */
  get counts(): Readonly<WorldCounts> {
    return this.#counts;
  }

  count(record: WorldRecord): void {
    this.#counts[record.kind]++;
  }

  meta(): MetaColumns {
    const begun = this.#started();
    return {
      seed: begun.seed,
      clock: begun.clock,
      clock_ms: begun.clockMs,
      counts: JSON.stringify(this.#counts),
      ids_follow_time: this.#idsFollowTime,
    };
  }

  user(lookup: UserLookup): UserColumns {
    this.#users.set(lookup.id, lookup.username);
    if (lookup.verified) this.#verified.add(lookup.id);
    if (lookup.protected) this.#protected.add(lookup.id);
    return userColumns(lookup);
  }

  follow(record: FollowRecord): FollowColumns {
    return {
      follower_id: boundId(record.followerId),
      created_ms: Date.parse(record.createdAt),
      followee_id: boundId(record.followeeId),
      follower_verified: this.#verified.has(record.followerId),
      followee_verified: this.#verified.has(record.followeeId),
    };
  }

  tweet(tweet: Tweet): TweetColumns {
    const id = BigInt(tweet.id);
    const authorId = tweet.author_id;
    if (!this.#users.has(authorId))
      throw new Error(`WorldWriter: tweet ${tweet.id} refers to unknown user ${authorId}`);
    const createdMs = Date.parse(tweet.created_at);
    if (id <= this.#lastTweet.id || createdMs < this.#lastTweet.createdMs) this.#idsFollowTime = false;
    this.#lastTweet = { id, createdMs };
    return tweetColumns(tweet, this.#protected.has(authorId));
  }

  /** What search knows of `tweet`: with its author's username and verified flag, and whom it replies to. */
  searchDocument(tweet: Tweet): SearchDocument {
    const authorId = tweet.author_id;
    const author = { username: this.#users.get(authorId) ?? "", verified: this.#verified.has(authorId) };
    const repliedTo = tweet.in_reply_to_user_id === undefined ? undefined : this.#users.get(tweet.in_reply_to_user_id);
    return searchDocument(tweet, { author, ...(repliedTo === undefined ? {} : { replyToUsername: repliedTo }) });
  }

  /** The `community_tweets` row of `tweet` (whose row is `row`) posted in the community `communityId`. */
  communityTweet(communityId: string, tweet: Tweet, row: TweetColumns): CommunityTweetColumns {
    return {
      community_id: boundId(communityId),
      tweet_id: row.id,
      created_ms: row.created_ms,
      like_count: tweet.like_count,
      relevance: communityRelevance(tweet, this.#started().clockMs),
    };
  }

  #started(): Begun {
    if (!this.#begun) throw new Error("WorldWriter: begin() must be called before anything else");
    return this.#begun;
  }
}
