// What one import batch does to the world, decided alike by every adapter from the rows it read: which
// copies are added, which replace a stored one (core's freshness rule), and what a replaced user's change
// reaches beyond its own row (its tweets' protected flag and search terms, the to: terms of replies to
// it, the verified flags of its follows). A copy is merged into the stored one (core's freshness
// rule); a merge that leaves the row as it was is "kept". Adapters read the stored rows, call
// planImport and write the plan in one transaction.
import {
  type BatchCounts,
  type ImportBatch,
  type ImportedTweet,
  mergeTweet,
  mergeUser,
  noOutcomes,
  storedTweetCopy,
  storedUserCopy,
  type Tweet,
  type UserLookup,
} from "@social/core";
import { type TweetColumns, tweetColumns, type UserColumns, userColumns } from "./world.ts";

export interface StoredTweet {
  tweet: Tweet;
  versions: number;
}

/** A tweet's row as an import writes it: with how many versions its edit history names. */
export type ImportTweetColumns = TweetColumns & { versions: number };

export interface PlannedTweet {
  tweet: Tweet;
  row: ImportTweetColumns;
  added: boolean;
}

export interface ImportPlan {
  users: { user: UserLookup; row: UserColumns; added: boolean }[];
  tweets: PlannedTweet[];
  counts: BatchCounts;
  /** Replaced users whose username, verified or protected flag changed: their tweets' rows and terms follow. */
  changedAuthors: string[];
  /** Replaced users whose username changed: replies to them carry it as a to: term. */
  renamed: string[];
  /** Replaced users whose verified flag changed, with the new flag, for their follows' rows. */
  reverified: Map<string, boolean>;
  /** Every user the batch's rows refer to (written, or stored and read), as the world holds it after. */
  userAfter(id: string): UserLookup | undefined;
}

/**
 * `storedUsers` must hold every stored user among the batch's users, its tweets' authors and the users
 * they reply to; `storedTweets` every stored tweet among the batch's.
 */
export function planImport(
  batch: ImportBatch,
  storedUsers: ReadonlyMap<string, UserLookup>,
  storedTweets: ReadonlyMap<string, StoredTweet>,
): ImportPlan {
  const counts: BatchCounts = { users: noOutcomes(), tweets: noOutcomes() };
  const written = new Map<string, UserLookup>();
  const plan: ImportPlan = {
    users: [],
    tweets: [],
    counts,
    changedAuthors: [],
    renamed: [],
    reverified: new Map(),
    userAfter: (id) => written.get(id) ?? storedUsers.get(id),
  };
  for (const incoming of batch.users) {
    const stored = storedUsers.get(incoming.user.id);
    const user = stored === undefined ? incoming.user : mergeUser(storedUserCopy(stored), incoming).user;
    const row = userColumns(user);
    if (stored !== undefined && sameColumns(row, userColumns(stored))) {
      counts.users.kept++;
      continue;
    }
    written.set(user.id, user);
    plan.users.push({ user, row, added: stored === undefined });
    counts.users[stored === undefined ? "added" : "updated"]++;
    if (stored === undefined) continue;
    const renamed = stored.username !== user.username;
    if (renamed) plan.renamed.push(user.id);
    if (stored.verified !== user.verified) plan.reverified.set(user.id, user.verified);
    if (renamed || stored.verified !== user.verified || stored.protected !== user.protected) {
      plan.changedAuthors.push(user.id);
    }
  }
  for (const incoming of batch.tweets) {
    const stored = storedTweets.get(incoming.tweet.id);
    const copy = stored === undefined ? incoming : mergeTweet(storedTweetCopy(stored.tweet, stored.versions), incoming);
    const { tweet } = copy;
    const author = plan.userAfter(tweet.author_id);
    if (author === undefined) throw new Error(`planImport: tweet ${tweet.id}'s author ${tweet.author_id} was not read`);
    const row = importTweetColumns(copy, author.protected);
    if (
      stored !== undefined &&
      sameColumns(row, importTweetColumns(storedTweetCopy(stored.tweet, stored.versions), author.protected))
    ) {
      counts.tweets.kept++;
      continue;
    }
    plan.tweets.push({ tweet, row, added: stored === undefined });
    counts.tweets[stored === undefined ? "added" : "updated"]++;
  }
  return plan;
}

function importTweetColumns({ tweet, versions }: ImportedTweet, authorProtected: boolean): ImportTweetColumns {
  return { ...tweetColumns(tweet, authorProtected), versions };
}

/** JSON with its members in one order, so that two equal objects written in other orders compare equal. */
function canonical(value: unknown): unknown {
  if (typeof value === "bigint") return String(value);
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== "object" || value === null) return value;
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([key, item]) => [key, canonical(item)]));
}

/** Whether two rows hold the same values, their JSON columns compared by content. */
function sameColumns(a: object, b: object): boolean {
  const read = (row: object) =>
    canonical(
      Object.fromEntries(Object.entries(row).map(([key, value]) => [key, jsonColumn(key) ? JSON.parse(value) : value])),
    );
  return JSON.stringify(read(a)) === JSON.stringify(read(b));
}

function jsonColumn(key: string): boolean {
  return key === "doc" || key === "extra";
}

/** The users a batch's rows refer to: for an adapter to read before it plans. */
export function usersOfBatch(batch: ImportBatch): string[] {
  const ids = new Set<string>();
  for (const { user } of batch.users) ids.add(user.id);
  for (const { tweet } of batch.tweets) {
    ids.add(tweet.author_id);
    if (tweet.in_reply_to_user_id !== undefined) ids.add(tweet.in_reply_to_user_id);
  }
  return [...ids];
}
