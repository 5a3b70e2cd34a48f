// The read-only Store: every read of the social world, with the page, cursor and range types its
// methods take. Asynchronous even where the adapter (bun:sqlite) is synchronous, so that a server-backed
// adapter implements it unchanged.
import type { JsonText } from "../json-text.ts";
import type { Article, Community, Relationship, Trend, Tweet, User, UserLookup } from "../model.ts";
import type { SearchNode } from "../search/ast.ts";
import type { CountWindow } from "../search/counts.ts";

/** A keyset position: the sort-key values of the last row of a page. Opaque to everyone but its store. */
export type Cursor = readonly (string | number)[];

/**
 * The tweets a read may return besides its page (since_id, until_id, start_time, end_time): ids strictly
 * between sinceId and untilId, created in [startMs, endMs).
 */
export interface ReadRange {
  sinceId?: string;
  untilId?: string;
  startMs?: number;
  endMs?: number;
}

export interface PageRequest {
  size: number;
  after?: Cursor;
  /** Who the page is for (an account id): a store may share its capacity fairly between owners. */
  owner?: string;
  /** Timelines only: the tweets the page may hold (search states its range in its query). */
  range?: ReadRange;
}

/** A page of ids: the JSON text of its IdObject array and how many it holds; `next` as in Page. */
export interface IdPage {
  ids: JsonText;
  count: number;
  next?: Cursor;
}

/** A page of rows; `next` is set only when at least one more row exists after `items`. */
export interface Page<T> {
  items: T[];
  next?: Cursor;
}

export type TimelineKind = "tweets" | "originals" | "replies" | "media" | "mentions";
export type GraphDirection = "followers" | "following";
export type CommunityTweetSort = "relevance" | "recency" | "likes";
export type TimeFilter = "day" | "week" | "month" | "year" | "all";
export type SearchSortOrder = "recency" | "relevancy";

/** A conversation root author's own chain of replies (Store.selfThread). */
export interface SelfThread {
  conversationId: string;
  authorId: string;
  complete: boolean;
  tweets: Tweet[];
}

/**
 * Reads of the social world. Methods that read below a parent resource (a user's followers, a list's
 * members, ...) resolve to `undefined` when the parent does not exist, so the caller can answer 404;
 * an existing parent with nothing below it is an empty page.
 */
export interface Store {
  /** Tweets found among `ids`, in the order of `ids`; missing ids are left out. */
  tweetsByIds(ids: readonly string[]): Promise<Tweet[]>;
  /** Users found among `ids`, in the order of `ids`; missing ids are left out. */
  usersByIds(ids: readonly string[]): Promise<UserLookup[]>;
  /** Case-insensitive username lookup. */
  userByUsername(username: string): Promise<UserLookup | undefined>;
  /** Users found among `usernames` (any case), in the order of `usernames`; names no user has are left out. */
  usersByUsernames(usernames: readonly string[]): Promise<UserLookup[]>;

  /**
   * Reverse-chronological, within `page.range`. tweets: original tweets and retweets (no replies);
   * originals: original tweets only; replies: everything the user posted, replies included; media:
   * tweets with media; mentions: anyone's tweets whose entities.mentions name the user by id.
   */
  timeline(userId: string, kind: TimelineKind, page: PageRequest): Promise<Page<Tweet> | undefined>;
  /** Newest relationship first. */
  graphUsers(
    userId: string,
    direction: GraphDirection,
    page: PageRequest,
    options?: { verifiedOnly?: boolean },
  ): Promise<Page<User> | undefined>;
  /** Newest relationship first, as an IdObject[] in JSON text (see JsonText). */
  graphIds(userId: string, direction: GraphDirection, page: PageRequest): Promise<IdPage | undefined>;
  /** Case-insensitive usernames; `undefined` when either user does not exist. */
  relationship(sourceUsername: string, targetUsername: string): Promise<Relationship | undefined>;

  /** Most recent first. */
  quotes(tweetId: string, page: PageRequest): Promise<Page<Tweet> | undefined>;
  /** Most recent retweet first. */
  retweeters(tweetId: string, page: PageRequest): Promise<Page<User> | undefined>;
  /** Replies in the conversation rooted at `tweetId`'s conversation, below `tweetId`, oldest first; the tweet itself excluded. */
  conversation(tweetId: string, page: PageRequest): Promise<Page<Tweet> | undefined>;
  /**
   * The self-thread of the conversation's root author, oldest first, at most `max` tweets: the root and
   * the chain of the author's replies to their own tweets. `complete` is false when the chain is longer
   * than `max` or the root is unavailable.
   */
  selfThread(tweetId: string, max: number): Promise<SelfThread | undefined>;
  article(tweetId: string): Promise<Article | undefined>;

  /** Newest first. */
  listTweets(listId: string, page: PageRequest): Promise<Page<Tweet> | undefined>;
  listMembers(listId: string, page: PageRequest): Promise<Page<User> | undefined>;
  listSubscribers(listId: string, page: PageRequest): Promise<Page<User> | undefined>;

  community(id: string): Promise<Community | undefined>;
  /** Communities whose name or description holds every word of `query`, largest first. */
  searchCommunities(query: string, page: PageRequest): Promise<Page<Community>>;
  communityMembers(id: string, page: PageRequest): Promise<Page<User> | undefined>;
  communityModerators(id: string, page: PageRequest): Promise<Page<User> | undefined>;
  /** relevance: likes + retweets weighted by freshness; recency: newest first; likes: most liked first within `timeFilter`. */
  communityTweets(
    id: string,
    sort: CommunityTweetSort,
    timeFilter: TimeFilter,
    page: PageRequest,
  ): Promise<Page<Tweet> | undefined>;

  /** The top `limit` trends of a location by rank; `undefined` when the woeid is unknown. */
  trends(woeid: string, limit: number): Promise<Trend[] | undefined>;

  /** recency: newest first; relevancy: best text match first (ties newest first). */
  searchTweets(query: SearchNode, sortOrder: SearchSortOrder, page: PageRequest): Promise<Page<Tweet>>;

  /**
   * How many tweets match `query` in each of the window's buckets, oldest first, with a search's bounded
   * work (`owner` takes turns as a search's does).
   */
  countTweets(query: SearchNode, window: CountWindow, owner?: string): Promise<number[]>;

  /** The world's clock (epoch ms), which its recent reads are measured from; undefined before a world is built. */
  clockMs(): Promise<number | undefined>;

  /** What the shared demo shows of this world. */
  showcase(): Promise<Showcase>;
}

/**
 * What the shared demo shows: the generated world's own examples, or a user and a query an import found
 * (its most followed author and its top hashtag), or nothing for a world with no public tweets yet.
 */
export type Showcase =
  | { kind: "examples" }
  | { kind: "imported"; username: string; query: string }
  | { kind: "nothing" };
