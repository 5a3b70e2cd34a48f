// The default world twice over for the store tests: built into a database, and kept as the generator's
// records, from which each test computes the unpaginated truth the store's pages must add up to.
import type { Database } from "bun:sqlite";
import {
  type CommunityTweetSort,
  type Page,
  type PageRequest,
  type SearchDocument,
  searchDocument,
  type Tweet,
  type User,
  type UserLookup,
  type WorldRecord,
} from "@social/core";
import { DEFAULT_WORLD, generateWorld, type WorldOptions } from "@social/fixtures";
import { openDatabase } from "../src/database.ts";
import { SqliteStore } from "../src/store/sqlite-store.ts";
import { buildWorld } from "../src/world/build.ts";
import { communityRelevance } from "../src/world/writer.ts";

type Of<Kind extends WorldRecord["kind"]> = Extract<WorldRecord, { kind: Kind }>;

export interface WorldTruth {
  clock: string;
  users: Map<string, UserLookup>;
  /** In id order, as generated. */
  tweets: Tweet[];
  tweetsById: Map<string, Tweet>;
  communityOf: Map<string, string>;
  records: { [Kind in WorldRecord["kind"]]: Of<Kind>[] };
}

export function collectWorld(options: WorldOptions): WorldTruth {
  const records = {
    user: [],
    follow: [],
    tweet: [],
    list: [],
    list_member: [],
    list_subscriber: [],
    community: [],
    community_member: [],
    trend: [],
    article: [],
  } as unknown as WorldTruth["records"];
  let clock = "";
  generateWorld(options, {
    begin: (meta) => {
      clock = meta.clock;
    },
    write: (batch) => {
      for (const record of batch) (records[record.kind] as WorldRecord[]).push(record);
    },
    end: () => {},
  });
  const tweets = records.tweet.map((record) => record.tweet);
  return {
    clock,
    users: new Map(records.user.map((record) => [record.user.id, record.user])),
    tweets,
    tweetsById: new Map(tweets.map((tweet) => [tweet.id, tweet])),
    communityOf: new Map(
      records.tweet.flatMap((record) =>
        record.communityId === undefined ? [] : [[record.tweet.id, record.communityId]],
      ),
    ),
    records,
  };
}

export interface BuiltWorld {
  db: Database;
  store: SqliteStore;
  truth: WorldTruth;
}

let defaultTruth: WorldTruth | undefined;

/** The default world in a fresh in-memory database, with its records. */
export function buildDefaultWorld(): BuiltWorld {
  const db = openDatabase(":memory:");
  buildWorld(db, DEFAULT_WORLD);
  defaultTruth ??= collectWorld(DEFAULT_WORLD);
  return { db, store: new SqliteStore(db), truth: defaultTruth };
}

/** Every item of a paginated read, page by page; checks that only the last page is short. */
export async function walk<T>(
  read: (page: PageRequest) => Promise<Page<T> | undefined>,
  size: number,
): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let page: PageRequest = { size };
  for (let pages = 1; ; pages++) {
    const result = await read(page);
    if (result === undefined) throw new Error("walk: the parent is missing");
    items.push(...result.items);
    if (result.next === undefined) return { items, pages };
    if (result.items.length !== size) throw new Error(`walk: page ${pages} has ${result.items.length} of ${size}`);
    page = { size, after: result.next };
  }
}

export const byIdDesc = (a: { id: string }, b: { id: string }) => Number(b.id) - Number(a.id);
export const byIdAsc = (a: { id: string }, b: { id: string }) => Number(a.id) - Number(b.id);

/** Newest first, ties by the larger id first: the order of every relation read. */
export function newestFirst<T>(items: readonly T[], createdAt: (item: T) => string, id: (item: T) => string): T[] {
  return [...items].sort(
    (a, b) => Date.parse(createdAt(b)) - Date.parse(createdAt(a)) || Number(id(b)) - Number(id(a)),
  );
}

/** Whether the store serves `tweet`: a protected account's tweets are left out of every read. */
/** What the reference matcher knows of `tweet`, from the world's users. */
export function searchDocumentIn(truth: WorldTruth, tweet: Tweet): SearchDocument {
  const author = truth.users.get(tweet.author_id);
  const repliedTo = tweet.in_reply_to_user_id === undefined ? undefined : truth.users.get(tweet.in_reply_to_user_id);
  return searchDocument(tweet, {
    author: { username: author?.username ?? "", verified: author?.verified ?? false },
    ...(repliedTo ? { replyToUsername: repliedTo.username } : {}),
  });
}

export function isVisible(truth: WorldTruth, tweet: Tweet): boolean {
  return truth.users.get(tweet.author_id)?.protected === false;
}

export function plainUser(lookup: UserLookup): User {
  const { status: _status, ...user } = lookup;
  return user;
}

/**
 * How the store orders a community's tweets for each sort, as comparisons of the generated tweets;
 * `truth` is read when comparing, so the orders can be listed before the world is built.
 */
export function communityTweetOrders(
  truth: () => WorldTruth,
): Record<CommunityTweetSort, (a: Tweet, b: Tweet) => number> {
  return {
    recency: byIdDesc,
    likes: (a, b) => b.like_count - a.like_count || byIdDesc(a, b),
    relevance: (a, b) => {
      const clockMs = Date.parse(truth().clock);
      return communityRelevance(b, clockMs) - communityRelevance(a, clockMs) || byIdDesc(a, b);
    },
  };
}
