// The Store port on bun:sqlite: each resource's statements and row mapping live in the module of its
// name beside this one, and this class only hands each read to its module.
import type { Database, Statement } from "bun:sqlite";
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
import { CommunityReads } from "./communities.ts";
import { ConversationReads } from "./conversations.ts";
import { GraphReads } from "./graph.ts";
import { ListReads } from "./lists.ts";
import { TweetSearch } from "./search.ts";
import { TrendReads } from "./trends.ts";
import { TweetReads } from "./tweets.ts";
import { UserReads } from "./users.ts";

export class SqliteStore implements Store {
  readonly #users: UserReads;
  readonly #graph: GraphReads;
  readonly #tweets: TweetReads;
  readonly #conversations: ConversationReads;
  readonly #lists: ListReads;
  readonly #communities: CommunityReads;
  readonly #trends: TrendReads;
  readonly #search: TweetSearch;
  readonly #clock: Statement<{ clock_ms: number }, []>;
  readonly #showcase: Statement<{ origin: string; showcase: string | null }, []>;

  /** `search`: how much work one search may do, and in what steps (tests shrink them). */
  constructor(db: Database, options: { search?: Partial<SearchLimits> } = {}) {
    this.#users = new UserReads(db);
    this.#graph = new GraphReads(db, this.#users);
    this.#tweets = new TweetReads(db);
    this.#conversations = new ConversationReads(db, this.#tweets);
    this.#lists = new ListReads(db);
    this.#communities = new CommunityReads(db);
    this.#trends = new TrendReads(db);
    this.#search = new TweetSearch(db, { ...DEFAULT_SEARCH_LIMITS, ...options.search });
    this.#clock = db.query("SELECT clock_ms FROM world_meta WHERE id = 1");
    this.#showcase = db.query("SELECT origin, showcase FROM world_meta WHERE id = 1");
  }

  async tweetsByIds(ids: readonly string[]): Promise<Tweet[]> {
    return this.#tweets.byIds(ids);
  }

  async usersByIds(ids: readonly string[]): Promise<UserLookup[]> {
    return this.#users.byIds(ids);
  }

  async userByUsername(username: string): Promise<UserLookup | undefined> {
    return this.#users.byUsername(username);
  }

  async usersByUsernames(usernames: readonly string[]): Promise<UserLookup[]> {
    // In-process lookups by an index: one statement each costs no round trip.
    return usernames.flatMap((username) => this.#users.byUsername(username) ?? []);
  }

  async timeline(userId: string, kind: TimelineKind, page: PageRequest): Promise<Page<Tweet> | undefined> {
    return this.#users.timeline(userId, kind, page);
  }

  async graphUsers(
    userId: string,
    direction: GraphDirection,
    page: PageRequest,
    options?: { verifiedOnly?: boolean },
  ): Promise<Page<User> | undefined> {
    return this.#graph.users(userId, direction, page, options?.verifiedOnly);
  }

  async graphIds(userId: string, direction: GraphDirection, page: PageRequest): Promise<IdPage | undefined> {
    return this.#graph.ids(userId, direction, page);
  }

  async relationship(sourceUsername: string, targetUsername: string): Promise<Relationship | undefined> {
    return this.#graph.relationship(sourceUsername, targetUsername);
  }

  async quotes(tweetId: string, page: PageRequest): Promise<Page<Tweet> | undefined> {
    return this.#tweets.quotes(tweetId, page);
  }

  async retweeters(tweetId: string, page: PageRequest): Promise<Page<User> | undefined> {
    return this.#tweets.retweeters(tweetId, page);
  }

  async conversation(tweetId: string, page: PageRequest): Promise<Page<Tweet> | undefined> {
    return this.#conversations.conversation(tweetId, page);
  }

  async selfThread(tweetId: string, max: number): Promise<SelfThread | undefined> {
    return this.#conversations.selfThread(tweetId, max);
  }

  async article(tweetId: string): Promise<Article | undefined> {
    return this.#tweets.article(tweetId);
  }

  async listTweets(listId: string, page: PageRequest): Promise<Page<Tweet> | undefined> {
    return this.#lists.tweets(listId, page);
  }

  async listMembers(listId: string, page: PageRequest): Promise<Page<User> | undefined> {
    return this.#lists.members(listId, page);
  }

  async listSubscribers(listId: string, page: PageRequest): Promise<Page<User> | undefined> {
    return this.#lists.subscribers(listId, page);
  }

  async community(id: string): Promise<Community | undefined> {
    return this.#communities.community(id);
  }

  async searchCommunities(query: string, page: PageRequest): Promise<Page<Community>> {
    return this.#communities.search(query, page);
  }

  async communityMembers(id: string, page: PageRequest): Promise<Page<User> | undefined> {
    return this.#communities.members(id, page);
  }

  async communityModerators(id: string, page: PageRequest): Promise<Page<User> | undefined> {
    return this.#communities.moderators(id, page);
  }

  async communityTweets(
    id: string,
    sort: CommunityTweetSort,
    timeFilter: TimeFilter,
    page: PageRequest,
  ): Promise<Page<Tweet> | undefined> {
    return this.#communities.tweets(id, sort, timeFilter, page);
  }

  async trends(woeid: string, limit: number): Promise<Trend[] | undefined> {
    return this.#trends.trends(woeid, limit);
  }

  async searchTweets(query: SearchNode, sortOrder: SearchSortOrder, page: PageRequest): Promise<Page<Tweet>> {
    return this.#search.page(query, sortOrder, page);
  }

  async countTweets(query: SearchNode, window: CountWindow, owner = ""): Promise<number[]> {
    return this.#search.count(query, window, owner);
  }

  async clockMs(): Promise<number | undefined> {
    return this.#clock.get()?.clock_ms ?? undefined;
  }

  async showcase(): Promise<Showcase> {
    const meta = this.#showcase.get();
    return meta === null ? { kind: "nothing" } : showcaseOf(meta.origin, meta.showcase);
  }
}
