// The Store port on PostgreSQL (Bun.sql): each resource's statements and row mapping live in the module
// of its name beside this one, as on SQLite, and this class only hands each read to its module.

import {
  type Article,
  type Community,
  type CommunityTweetSort,
  type CountWindow,
  DEFAULT_SEARCH_LIMITS,
  type GraphDirection,
  type IdPage,
  type Page,
  type PageRequest,
  type Relationship,
  type SearchLimits,
  type SearchNode,
  type SearchSortOrder,
  type SelfThread,
  type Showcase,
  type Store,
  type TimeFilter,
  type TimelineKind,
  type Trend,
  type Tweet,
  type User,
  type UserLookup,
} from "@social/core";
import { showcaseOf } from "@social/store-common";
import type { SQL } from "bun";
import { POOL_SIZE } from "../database.ts";
import { CommunityReads } from "./communities.ts";
import { ConversationReads } from "./conversations.ts";
import { GraphReads } from "./graph.ts";
import { ListReads } from "./lists.ts";
import { TweetSearch } from "./search.ts";
import { TrendReads } from "./trends.ts";
import { TweetReads } from "./tweets.ts";
import { UserReads } from "./users.ts";

export interface PostgresStoreOptions {
  search?: Partial<SearchLimits>;
  /** How many of the pool's connections searches may hold at once; half of `sql`'s pool by default. */
  concurrentSearches?: number;
  /** How many of the newest tweets a recency page walks before it gathers; by default sized from the world's. */
  newestWalk?: number;
}

export class PostgresStore implements Store {
  readonly #users: UserReads;
  readonly #graph: GraphReads;
  readonly #tweets: TweetReads;
  readonly #conversations: ConversationReads;
  readonly #lists: ListReads;
  readonly #communities: CommunityReads;
  readonly #trends: TrendReads;
  readonly #search: TweetSearch;
  readonly #sql: SQL;

  constructor(sql: SQL, options: PostgresStoreOptions = {}) {
    this.#sql = sql;
    this.#users = new UserReads(sql);
    this.#graph = new GraphReads(sql, this.#users);
    this.#tweets = new TweetReads(sql);
    this.#conversations = new ConversationReads(sql, this.#tweets);
    this.#lists = new ListReads(sql);
    this.#communities = new CommunityReads(sql);
    this.#trends = new TrendReads(sql);
    this.#search = new TweetSearch(
      sql,
      { ...DEFAULT_SEARCH_LIMITS, ...options.search },
      {
        concurrentSearches: options.concurrentSearches ?? halfOfPool(sql),
        ...(options.newestWalk === undefined ? {} : { newestWalk: options.newestWalk }),
      },
    );
  }

  tweetsByIds(ids: readonly string[]): Promise<Tweet[]> {
    return this.#tweets.byIds(ids);
  }

  usersByIds(ids: readonly string[]): Promise<UserLookup[]> {
    return this.#users.byIds(ids);
  }

  userByUsername(username: string): Promise<UserLookup | undefined> {
    return this.#users.byUsername(username);
  }

  usersByUsernames(usernames: readonly string[]): Promise<UserLookup[]> {
    return this.#users.byUsernames(usernames);
  }

  timeline(userId: string, kind: TimelineKind, page: PageRequest): Promise<Page<Tweet> | undefined> {
    return this.#users.timeline(userId, kind, page);
  }

  graphUsers(
    userId: string,
    direction: GraphDirection,
    page: PageRequest,
    options?: { verifiedOnly?: boolean },
  ): Promise<Page<User> | undefined> {
    return this.#graph.users(userId, direction, page, options?.verifiedOnly);
  }

  graphIds(userId: string, direction: GraphDirection, page: PageRequest): Promise<IdPage | undefined> {
    return this.#graph.ids(userId, direction, page);
  }

  relationship(sourceUsername: string, targetUsername: string): Promise<Relationship | undefined> {
    return this.#graph.relationship(sourceUsername, targetUsername);
  }

  quotes(tweetId: string, page: PageRequest): Promise<Page<Tweet> | undefined> {
    return this.#tweets.quotes(tweetId, page);
  }

  retweeters(tweetId: string, page: PageRequest): Promise<Page<User> | undefined> {
    return this.#tweets.retweeters(tweetId, page);
  }

  conversation(tweetId: string, page: PageRequest): Promise<Page<Tweet> | undefined> {
    return this.#conversations.conversation(tweetId, page);
  }

  selfThread(tweetId: string, max: number): Promise<SelfThread | undefined> {
    return this.#conversations.selfThread(tweetId, max);
  }

  article(tweetId: string): Promise<Article | undefined> {
    return this.#tweets.article(tweetId);
  }

  listTweets(listId: string, page: PageRequest): Promise<Page<Tweet> | undefined> {
    return this.#lists.tweets(listId, page);
  }

  listMembers(listId: string, page: PageRequest): Promise<Page<User> | undefined> {
    return this.#lists.members(listId, page);
  }

  listSubscribers(listId: string, page: PageRequest): Promise<Page<User> | undefined> {
    return this.#lists.subscribers(listId, page);
  }

  community(id: string): Promise<Community | undefined> {
    return this.#communities.community(id);
  }

  searchCommunities(query: string, page: PageRequest): Promise<Page<Community>> {
    return this.#communities.search(query, page);
  }

  communityMembers(id: string, page: PageRequest): Promise<Page<User> | undefined> {
    return this.#communities.members(id, page);
  }

  communityModerators(id: string, page: PageRequest): Promise<Page<User> | undefined> {
    return this.#communities.moderators(id, page);
  }

  communityTweets(
    id: string,
    sort: CommunityTweetSort,
    timeFilter: TimeFilter,
    page: PageRequest,
  ): Promise<Page<Tweet> | undefined> {
    return this.#communities.tweets(id, sort, timeFilter, page);
  }

  trends(woeid: string, limit: number): Promise<Trend[] | undefined> {
    return this.#trends.trends(woeid, limit);
  }

  searchTweets(query: SearchNode, sortOrder: SearchSortOrder, page: PageRequest): Promise<Page<Tweet>> {
    return this.#search.page(query, sortOrder, page);
  }

  countTweets(query: SearchNode, window: CountWindow, owner = ""): Promise<number[]> {
    return this.#search.count(query, window, owner);
  }

  async clockMs(): Promise<number | undefined> {
    const [row] = await this.#sql<{ clock_ms: string }[]>`SELECT clock_ms FROM world_meta WHERE id = 1`;
    return row === undefined ? undefined : Number(row.clock_ms);
  }

  async showcase(): Promise<Showcase> {
    const [row] = await this.#sql<{ origin: string; showcase: string | null }[]>`
      SELECT origin, showcase FROM world_meta WHERE id = 1`;
    return row === undefined ? { kind: "nothing" } : showcaseOf(row.origin, row.showcase);
  }
}

/** Half of the pool's connections (at least one): the other half is left to lookups and charges. */
function halfOfPool(sql: SQL): number {
  return Math.max(1, Math.floor((sql.options.max ?? POOL_SIZE) / 2));
}
