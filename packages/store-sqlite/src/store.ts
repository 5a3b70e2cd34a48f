// The Store port on bun:sqlite. Every paginated read is a keyset walk of one index: the cursor holds the
// sort key of the last row returned, each page asks for one row more than it returns to learn whether
// another page exists, and so the thousandth page costs what the first one does.
import type { Database, Statement } from "bun:sqlite";
import {
  type Article,
  type Community,
  type CommunityTweetSort,
  type Cursor,
  type GraphDirection,
  type IdPage,
  invalidPageToken,
  JsonText,
  type Page,
  type PageRequest,
  type Relationship,
  type SearchNode,
  type SearchSortOrder,
  type Store,
  type TimeFilter,
  type TimelineKind,
  type Trend,
  type Tweet,
  tokenize,
  type User,
  type UserLookup,
} from "@social/core";
import { searchCursor } from "./search/compile.ts";
import { DEFAULT_SEARCH_LIMITS, SearchExecutor, type SearchLimits } from "./search/execute.ts";
import { ftsString } from "./search/fts-columns.ts";
import {
  storedId,
  TWEET_COLUMNS,
  type TweetRow,
  tweetFromRow,
  USER_COLUMNS,
  type UserRow,
  userFromRow,
  userLookupFromRow,
  VISIBLE,
} from "./world/rows.ts";

/** Above every id and timestamp: the keyset start of a newest-first walk. */
const CEILING = 2 ** 53;
const DAY_MS = 86_400_000;
/** How far back each time filter reaches from the world's clock; a month is 30 days, a year 365. */
const TIME_FILTER_DAYS: Record<Exclude<TimeFilter, "all">, number> = { day: 1, week: 7, month: 30, year: 365 };

type Row<Key extends string> = Record<Key, number>;
type KeyedUserRow = UserRow & Row<"k1" | "k2">;
type KeyedTweetRow = TweetRow & Row<"k1">;

/** The keyset position to continue after: `after` checked to be `start`'s shape, or `start` itself. */
function keyset<Key extends [number] | [number, number]>(after: Cursor | undefined, start: Key): Key {
  if (after === undefined) return start;
  if (after.length !== start.length || !after.every((value) => typeof value === "number" && Number.isFinite(value))) {
    throw invalidPageToken();
  }
  return after as unknown as Key;
}

/** The page of the first `size` rows, with a cursor when the query returned one more. */
function pageOf<R, T>(rows: R[], size: number, item: (row: R) => T, cursor: (row: R) => Cursor): Page<T> {
  const items = rows.slice(0, size);
  const last = items.at(-1);
  return rows.length > size && last !== undefined
    ? { items: items.map(item), next: cursor(last) }
    : { items: items.map(item) };
}

const tweetPage = (rows: KeyedTweetRow[], size: number) => pageOf(rows, size, tweetFromRow, (row) => [row.k1]);
const userPage = (rows: KeyedUserRow[], size: number) => pageOf(rows, size, userFromRow, (row) => [row.k1, row.k2]);

export class SqliteStore implements Store {
  readonly #search: SearchExecutor;
  readonly #q: ReturnType<typeof prepareStatements>;

  /** `search`: how much work one search may do, and in what steps (tests shrink them). */
  constructor(db: Database, options: { search?: Partial<SearchLimits> } = {}) {
    this.#search = new SearchExecutor(db, { ...DEFAULT_SEARCH_LIMITS, ...options.search });
    this.#q = prepareStatements(db);
  }

  async tweetsByIds(ids: readonly string[]): Promise<Tweet[]> {
    return ids.flatMap((id) => {
      const row = this.#tweetRow(id);
      return row === undefined ? [] : [tweetFromRow(row)];
    });
  }

  async usersByIds(ids: readonly string[]): Promise<UserLookup[]> {
    return ids.flatMap((id) => {
      const row = this.#userRow(id);
      return row === undefined ? [] : [userLookupFromRow(row)];
    });
  }

  async userByUsername(username: string): Promise<UserLookup | undefined> {
    const row = this.#q.userByUsername.get(username) as UserRow | null;
    return row === null ? undefined : userLookupFromRow(row);
  }

  async timeline(userId: string, kind: TimelineKind, page: PageRequest): Promise<Page<Tweet> | undefined> {
    const id = this.#existingUserId(userId);
    if (id === undefined) return undefined;
    const [before] = keyset<[number]>(page.after, [CEILING]);
    return tweetPage(this.#q.timeline[kind].all(id, before, page.size + 1) as KeyedTweetRow[], page.size);
  }

  async graphUsers(
    userId: string,
    direction: GraphDirection,
    page: PageRequest,
    options?: { verifiedOnly?: boolean },
  ): Promise<Page<User> | undefined> {
    const id = this.#existingUserId(userId);
    if (id === undefined) return undefined;
    const statements = options?.verifiedOnly ? this.#q.verifiedGraphUsers : this.#q.graphUsers;
    const [k1, k2] = keyset<[number, number]>(page.after, [CEILING, CEILING]);
    return userPage(statements[direction].all(id, k1, k2, page.size + 1) as KeyedUserRow[], page.size);
  }

  /**
   * SQLite writes the page's JSON itself, so a page of 5,000 ids is one string, not 5,000 rows,
   * strings and objects. A full page then asks for the keys at its last position and the one after:
   * the cursor, and whether another page exists.
   */
  async graphIds(userId: string, direction: GraphDirection, page: PageRequest): Promise<IdPage | undefined> {
    const id = this.#existingUserId(userId);
    if (id === undefined) return undefined;
    const [k1, k2] = keyset<[number, number]>(page.after, [CEILING, CEILING]);
    const statements = this.#q.graphIds[direction];
    const { ids, count } = statements.page.get(id, k1, k2, page.size) as { ids: string; count: number };
    const result = { ids: new JsonText(ids), count };
    if (count < page.size) return result;
    const [last, after] = statements.tail.all(id, k1, k2, page.size) as Row<"k1" | "k2">[];
    return last && after ? { ...result, next: [last.k1, last.k2] } : result;
  }

  async relationship(sourceUsername: string, targetUsername: string): Promise<Relationship | undefined> {
    const source = this.#q.userIdByUsername.get(sourceUsername) as { id: number; username: string } | null;
    const target = this.#q.userIdByUsername.get(targetUsername) as { id: number; username: string } | null;
    if (source === null || target === null) return undefined;
    const follows = (follower: number, followee: number) =>
      (this.#q.follows.get(follower, followee) as { yes: number }).yes === 1;
    return {
      source_user_id: String(source.id),
      source_username: source.username,
      target_user_id: String(target.id),
      target_username: target.username,
      following: follows(source.id, target.id),
      followed_by: follows(target.id, source.id),
    };
  }

  async quotes(tweetId: string, page: PageRequest): Promise<Page<Tweet> | undefined> {
    const id = this.#existingTweetId(tweetId);
    if (id === undefined) return undefined;
    const [before] = keyset<[number]>(page.after, [CEILING]);
    return tweetPage(this.#q.quotes.all(id, before, page.size + 1) as KeyedTweetRow[], page.size);
  }

  async retweeters(tweetId: string, page: PageRequest): Promise<Page<User> | undefined> {
    const id = this.#existingTweetId(tweetId);
    if (id === undefined) return undefined;
    const [before] = keyset<[number]>(page.after, [CEILING]);
    const rows = this.#q.retweeters.all(id, before, page.size + 1) as KeyedUserRow[];
    return pageOf(rows, page.size, userFromRow, (row) => [row.k1]);
  }

  async conversation(tweetId: string, page: PageRequest): Promise<Page<Tweet> | undefined> {
    const stored = storedId(tweetId);
    const tweet =
      stored === undefined ? null : (this.#q.tweetConversation.get(stored) as { id: number; root: number } | null);
    if (tweet === null) return undefined;
    const [after] = keyset<[number]>(page.after, [tweet.id]);
    // Below a conversation's root lies the whole conversation, which its index lists in id order; below
    // any other tweet, the reply tree has to be walked.
    const below = tweet.id === tweet.root ? this.#q.conversationReplies : this.#q.descendants;
    return tweetPage(below.all(tweet.id, after, page.size + 1) as KeyedTweetRow[], page.size);
  }

  async selfThread(
    tweetId: string,
    max: number,
  ): Promise<{ conversationId: string; authorId: string; complete: boolean; tweets: Tweet[] } | undefined> {
    const focal = this.#tweetRow(tweetId);
    if (focal === undefined) return undefined;
    const root = this.#q.tweet.get(focal.conversation_id) as TweetRow | null;
    // Without its root the thread starts at the top of the focal author's own chain above the focal tweet.
    const start = root ?? this.#selfChainTop(focal);
    const chain = new Set<number>([start.id]);
    const tweets: Tweet[] = [];
    let longer = false;
    for (const row of this.#q.conversationByAuthor.iterate(
      start.conversation_id,
      start.id,
      start.author_id,
    ) as Iterable<TweetRow & { reply_to_id: number | null }>) {
      if (row.id !== start.id && (row.reply_to_id === null || !chain.has(row.reply_to_id))) continue;
      if (tweets.length === max) {
        longer = true;
        break;
      }
      chain.add(row.id);
      tweets.push(tweetFromRow(row));
    }
    return {
      conversationId: String(focal.conversation_id),
      authorId: String(start.author_id),
      complete: root !== null && !longer,
      tweets,
    };
  }

  async article(tweetId: string): Promise<Article | undefined> {
    const id = storedId(tweetId);
    const row = id === undefined ? null : (this.#q.article.get(id) as (UserRow & { article: string }) | null);
    if (row === null) return undefined;
    return { ...(JSON.parse(row.article) as Omit<Article, "author">), author: articleAuthor(userFromRow(row)) };
  }

  async listTweets(listId: string, page: PageRequest): Promise<Page<Tweet> | undefined> {
    const id = this.#existingListId(listId);
    if (id === undefined) return undefined;
    const [before] = keyset<[number]>(page.after, [CEILING]);
    return tweetPage(this.#q.listTweets.all(id, before, page.size + 1) as KeyedTweetRow[], page.size);
  }

  async listMembers(listId: string, page: PageRequest): Promise<Page<User> | undefined> {
    return this.#listUsers(this.#q.listMembers, listId, page);
  }

  async listSubscribers(listId: string, page: PageRequest): Promise<Page<User> | undefined> {
    return this.#listUsers(this.#q.listSubscribers, listId, page);
  }

  async community(id: string): Promise<Community | undefined> {
    const stored = storedId(id);
    const row = stored === undefined ? null : (this.#q.community.get(stored) as CommunityRow | null);
    return row === null ? undefined : communityFromRow(row);
  }

  async searchCommunities(query: string, page: PageRequest): Promise<Page<Community>> {
    const [k1, k2] = keyset<[number, number]>(page.after, [CEILING, CEILING]);
    const words = tokenize(query);
    const rows = (
      words.length === 0
        ? this.#q.allCommunities.all(k1, k2, page.size + 1)
        : this.#q.communitiesMatching.all(words.map(ftsString).join(" AND "), k1, k2, page.size + 1)
    ) as CommunityRow[];
    return pageOf(rows, page.size, communityFromRow, (row) => [row.member_count, row.id]);
  }

  async communityMembers(id: string, page: PageRequest): Promise<Page<User> | undefined> {
    return this.#communityUsers(this.#q.communityMembers, id, page);
  }

  async communityModerators(id: string, page: PageRequest): Promise<Page<User> | undefined> {
    return this.#communityUsers(this.#q.communityModerators, id, page);
  }

  async communityTweets(
    id: string,
    sort: CommunityTweetSort,
    timeFilter: TimeFilter,
    page: PageRequest,
  ): Promise<Page<Tweet> | undefined> {
    const stored = storedId(id);
    if (stored === undefined || this.#q.community.get(stored) === null) return undefined;
    const since = timeFilter === "all" ? -CEILING : this.#clockMs() - TIME_FILTER_DAYS[timeFilter] * DAY_MS;
    const size = page.size;
    if (sort === "recency") {
      const [before] = keyset<[number]>(page.after, [CEILING]);
      return tweetPage(this.#q.communityTweets.recency.all(stored, since, before, size + 1) as KeyedTweetRow[], size);
    }
    const [k1, k2] = keyset<[number, number]>(page.after, [Number.MAX_VALUE, CEILING]);
    const rows = this.#q.communityTweets[sort].all(stored, since, k1, k2, size + 1) as (KeyedTweetRow & Row<"k2">)[];
    return pageOf(rows, size, tweetFromRow, (row) => [row.k1, row.k2]);
  }

  async trends(woeid: string, limit: number): Promise<Trend[] | undefined> {
    const trends = this.#q.trends.all(woeid, limit) as Trend[];
    if (trends.length === 0 && this.#q.trendPlace.get(woeid) === null) return undefined;
    return trends;
  }

  async searchTweets(query: SearchNode, sortOrder: SearchSortOrder, page: PageRequest): Promise<Page<Tweet>> {
    const rows = await this.#search.rows(query, sortOrder, page.size + 1, page.after, page.owner ?? "");
    return pageOf(rows, page.size, tweetFromRow, (row) => searchCursor(sortOrder, row));
  }

  #tweetRow(id: string): TweetRow | undefined {
    const stored = storedId(id);
    return (stored === undefined ? undefined : (this.#q.tweet.get(stored) as TweetRow | null)) ?? undefined;
  }

  #userRow(id: string): UserRow | undefined {
    const stored = storedId(id);
    return (stored === undefined ? undefined : (this.#q.user.get(stored) as UserRow | null)) ?? undefined;
  }

  #existingUserId(id: string): number | undefined {
    const stored = storedId(id);
    return stored !== undefined && this.#q.userExists.get(stored) !== null ? stored : undefined;
  }

  #existingTweetId(id: string): number | undefined {
    const stored = storedId(id);
    return stored !== undefined && this.#q.tweetExists.get(stored) !== null ? stored : undefined;
  }

  #existingListId(id: string): number | undefined {
    const stored = storedId(id);
    return stored !== undefined && this.#q.listExists.get(stored) !== null ? stored : undefined;
  }

  #selfChainTop(tweet: TweetRow): TweetRow {
    let top = tweet;
    for (;;) {
      const parent = this.#q.selfParent.get(top.id) as TweetRow | null;
      if (parent === null) return top;
      top = parent;
    }
  }

  #clockMs(): number {
    const meta = this.#q.clock.get() as { clock_ms: number } | null;
    if (meta === null) throw new Error("store: the database holds no world (build one first)");
    return meta.clock_ms;
  }

  #listUsers(statement: Statement, listId: string, page: PageRequest): Page<User> | undefined {
    const id = this.#existingListId(listId);
    if (id === undefined) return undefined;
    const [k1, k2] = keyset<[number, number]>(page.after, [CEILING, CEILING]);
    return userPage(statement.all(id, k1, k2, page.size + 1) as KeyedUserRow[], page.size);
  }

  #communityUsers(statement: Statement, communityId: string, page: PageRequest): Page<User> | undefined {
    const id = storedId(communityId);
    if (id === undefined || this.#q.community.get(id) === null) return undefined;
    const [k1, k2] = keyset<[number, number]>(page.after, [CEILING, CEILING]);
    return userPage(statement.all(id, k1, k2, page.size + 1) as KeyedUserRow[], page.size);
  }
}

function articleAuthor(user: User): Article["author"] {
  const { id, username, name, description, verified, profile_image_url } = user;
  const { follower_count, following_count, tweet_count } = user;
  return {
    id,
    username,
    name,
    description,
    verified,
    protected: user.protected,
    profile_image_url,
    follower_count,
    following_count,
    tweet_count,
  };
}

interface CommunityRow {
  id: number;
  name: string;
  description: string;
  member_count: number;
}

function communityFromRow(row: CommunityRow): Community {
  return { id: String(row.id), name: row.name, description: row.description, member_count: row.member_count };
}

// Row aliases: k1 (and k2) are each row's sort key, which becomes the cursor of the page it ends.
/**
 * A keyset walk of ids (`walk` selects k1, k2 in page order, bound to ?1 the user and ?2, ?3 the
 * position) as two statements: `page`, the JSON of the next ?4 ids and their count; `tail`, the keys
 * at position ?4 and ?4 + 1. The aggregate takes the ordered subquery's rows in the order it yields
 * them (an ORDER BY inside json_group_array would sort them again, at 2.5 times the cost); the store
 * tests pin that order against a row-by-row walk.
 */
function idPageStatements(db: Database, walk: string) {
  return {
    page: db.prepare(
      `SELECT json_group_array(json_object('id', CAST(k2 AS TEXT))) AS ids, count(*) AS count
       FROM (${walk} LIMIT ?4)`,
    ),
    tail: db.prepare(`${walk} LIMIT 2 OFFSET ?4 - 1`),
  };
}

function prepareStatements(db: Database) {
  const tweetsNewestFirst = (where: string, from = "tweets t") =>
    db.prepare(
      `SELECT ${TWEET_COLUMNS}, t.id AS k1 FROM ${from} WHERE ${where} AND ${VISIBLE} AND t.id < ? ORDER BY t.id DESC LIMIT ?`,
    );
  const tweetsOldestFirst = (where: string) =>
    db.prepare(
      `SELECT ${TWEET_COLUMNS}, t.id AS k1 FROM tweets t WHERE ${where} AND ${VISIBLE} AND t.id > ? ORDER BY t.id LIMIT ?`,
    );
  // Users reached through a relation table `r` whose key is (parent, created_ms, user), newest first.
  const usersNewestFirst = (table: string, parent: string, user: string, filter = "") =>
    db.prepare(
      `SELECT ${USER_COLUMNS}, r.created_ms AS k1, r.${user} AS k2 FROM ${table} r JOIN users u ON u.id = r.${user}
       WHERE r.${parent} = ?${filter} AND (r.created_ms, r.${user}) < (?, ?)
       ORDER BY r.created_ms DESC, r.${user} DESC LIMIT ?`,
    );
  const communityTweetsBy = (key: string) =>
    db.prepare(
      `SELECT ${TWEET_COLUMNS}, c.${key} AS k1, c.tweet_id AS k2 FROM community_tweets c JOIN tweets t ON t.id = c.tweet_id
       WHERE c.community_id = ? AND c.created_ms >= ? AND ${VISIBLE} AND (c.${key}, c.tweet_id) < (?, ?)
       ORDER BY c.${key} DESC, c.tweet_id DESC LIMIT ?`,
    );
  const communitiesBySize = (where: string) =>
    db.prepare(
      `SELECT c.id, c.name, c.description, c.member_count FROM communities c
       WHERE ${where} (c.member_count, c.id) < (?, ?) ORDER BY c.member_count DESC, c.id DESC LIMIT ?`,
    );
  return {
    tweet: db.prepare(`SELECT ${TWEET_COLUMNS} FROM tweets t WHERE t.id = ? AND ${VISIBLE}`),
    tweetExists: db.prepare(`SELECT 1 FROM tweets t WHERE t.id = ? AND ${VISIBLE}`),
    user: db.prepare(`SELECT ${USER_COLUMNS} FROM users u WHERE u.id = ?`),
    userExists: db.prepare("SELECT 1 FROM users WHERE id = ?"),
    userByUsername: db.prepare(`SELECT ${USER_COLUMNS} FROM users u WHERE u.username = ? COLLATE NOCASE`),
    userIdByUsername: db.prepare("SELECT id, username FROM users WHERE username = ? COLLATE NOCASE"),
    listExists: db.prepare("SELECT 1 FROM lists WHERE id = ?"),
    clock: db.prepare("SELECT clock_ms FROM world_meta WHERE id = 1"),
    timeline: {
      tweets: tweetsNewestFirst("t.author_id = ? AND t.is_reply = 0"),
      replies: tweetsNewestFirst("t.author_id = ?"),
      media: tweetsNewestFirst("t.author_id = ? AND t.has_media = 1"),
    },
    graphUsers: {
      followers: usersNewestFirst("follows", "followee_id", "follower_id"),
      following: usersNewestFirst("follows", "follower_id", "followee_id"),
    },
    verifiedGraphUsers: {
      followers: usersNewestFirst("follows", "followee_id", "follower_id", " AND r.follower_verified = 1"),
      following: usersNewestFirst("follows", "follower_id", "followee_id", " AND r.followee_verified = 1"),
    },
    graphIds: {
      followers: idPageStatements(
        db,
        `SELECT created_ms AS k1, follower_id AS k2 FROM follows WHERE followee_id = ?1 AND (created_ms, follower_id) < (?2, ?3)
         ORDER BY created_ms DESC, follower_id DESC`,
      ),
      following: idPageStatements(
        db,
        `SELECT created_ms AS k1, followee_id AS k2 FROM follows WHERE follower_id = ?1 AND (created_ms, followee_id) < (?2, ?3)
         ORDER BY created_ms DESC, followee_id DESC`,
      ),
    },
    follows: db.prepare("SELECT EXISTS (SELECT 1 FROM follows WHERE follower_id = ? AND followee_id = ?) AS yes"),
    quotes: tweetsNewestFirst("t.quoted_id = ?"),
    retweeters: db.prepare(
      `SELECT ${USER_COLUMNS}, t.id AS k1 FROM tweets t JOIN users u ON u.id = t.author_id
       WHERE t.retweeted_id = ? AND ${VISIBLE} AND t.id < ? ORDER BY t.id DESC LIMIT ?`,
    ),
    // Replies have larger ids than what they reply to, so every descendant comes after the tweet itself.
    descendants: db.prepare(
      `WITH RECURSIVE below (id) AS (
         SELECT id FROM tweets WHERE reply_to_id = ?
         UNION ALL
         SELECT r.id FROM tweets r JOIN below b ON r.reply_to_id = b.id
       )
       SELECT ${TWEET_COLUMNS}, t.id AS k1 FROM tweets t WHERE t.id IN below AND ${VISIBLE} AND t.id > ? ORDER BY t.id LIMIT ?`,
    ),
    tweetConversation: db.prepare(`SELECT t.id, t.conversation_id AS root FROM tweets t WHERE t.id = ? AND ${VISIBLE}`),
    conversationReplies: tweetsOldestFirst("t.conversation_id = ? AND t.reply_to_id IS NOT NULL"),
    conversationByAuthor: db.prepare(
      `SELECT ${TWEET_COLUMNS}, t.reply_to_id FROM tweets t
       WHERE t.conversation_id = ? AND t.id >= ? AND t.author_id = ? AND ${VISIBLE} ORDER BY t.id`,
    ),
    selfParent: db.prepare(
      `SELECT ${TWEET_COLUMNS} FROM tweets c JOIN tweets t ON t.id = c.reply_to_id AND t.author_id = c.author_id
       WHERE c.id = ? AND ${VISIBLE}`,
    ),
    article: db.prepare(
      `SELECT a.doc AS article, ${USER_COLUMNS} FROM articles a JOIN tweets t ON t.id = a.tweet_id
       JOIN users u ON u.id = a.author_id WHERE a.tweet_id = ? AND ${VISIBLE}`,
    ),
    listTweets: tweetsNewestFirst("m.list_id = ?", "list_members m JOIN tweets t ON t.author_id = m.user_id"),
    listMembers: usersNewestFirst("list_members", "list_id", "user_id"),
    listSubscribers: usersNewestFirst("list_subscribers", "list_id", "user_id"),
    community: db.prepare("SELECT id, name, description, member_count FROM communities WHERE id = ?"),
    allCommunities: communitiesBySize(""),
    communitiesMatching: communitiesBySize(
      "c.id IN (SELECT rowid FROM communities_fts WHERE communities_fts MATCH ?) AND",
    ),
    communityMembers: usersNewestFirst("community_members", "community_id", "user_id"),
    communityModerators: usersNewestFirst("community_members", "community_id", "user_id", " AND r.role = 'moderator'"),
    communityTweets: {
      recency: db.prepare(
        `SELECT ${TWEET_COLUMNS}, c.tweet_id AS k1 FROM community_tweets c JOIN tweets t ON t.id = c.tweet_id
         WHERE c.community_id = ? AND c.created_ms >= ? AND ${VISIBLE} AND c.tweet_id < ? ORDER BY c.tweet_id DESC LIMIT ?`,
      ),
      likes: communityTweetsBy("like_count"),
      relevance: communityTweetsBy("relevance"),
    },
    trends: db.prepare(
      "SELECT woeid, rank, name, query, tweet_count FROM trends WHERE woeid = ? ORDER BY rank LIMIT ?",
    ),
    trendPlace: db.prepare("SELECT 1 FROM trends WHERE woeid = ? LIMIT 1"),
  };
}
