// What one import batch does to the world, decided alike by every adapter from the rows it read: which
// copies are added, which replace a stored one (core's freshness rule), and what a written user reaches
// beyond its own row: a replaced user's tweets' protected flag and search terms, and the verified flags
// of its follows; the to: terms of the replies to a user added or renamed; the ids of the stored posts'
// mentions that named it by username alone, while the world did not hold it. A copy is merged into the
// stored one (core's freshness rule); a merge that leaves the row as it was is "kept". Adapters read the
// stored rows, call planImport and write the plan in one transaction.
import {
  type BatchCounts,
  foldUsername,
  type ImportBatch,
  type ImportedTweet,
  mergeTweet,
  mergeUser,
  noOutcomes,
  storedTweetCopy,
  storedUserCopy,
  type Tweet,
  type UserLookup,
  withMentionIds,
} from "@social/core";
import { tweetMentionNames } from "./mentions.ts";
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
  /** Users added, or replaced with another username: the replies to them carry it as a to: term. */
  newUsernames: string[];
  /** Replaced users whose verified flag changed, with the new flag, for their follows' rows. */
  reverified: Map<string, boolean>;
  /** Every user the batch's rows refer to (written, or stored and read), as the world holds it after. */
  userAfter(id: string): UserLookup | undefined;
}

/**
 * `storedTweets` must hold every stored tweet among the batch's, and those that mention one of the
 * batch's usernames (namesOfBatch) without an id; `storedUsers` every stored user among the batch's
 * users and the authors and replied-to users of the batch's and those tweets (usersOfBatch). A stored
 * tweet outside the batch that gains a mention's id is planned as replaced, and not counted: it is not
 * a copy the import gave.
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
    newUsernames: [],
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
    if (stored === undefined) {
      plan.newUsernames.push(user.id);
      continue;
    }
    const renamed = stored.username !== user.username;
    if (renamed) plan.newUsernames.push(user.id);
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
  planMentionIds(plan, batch, storedTweets);
  return plan;
}

/** The stored tweets outside the batch that mention a user it writes by username alone, given the user's id. */
function planMentionIds(plan: ImportPlan, batch: ImportBatch, storedTweets: ReadonlyMap<string, StoredTweet>): void {
  const arrived = new Map<string, string>();
  for (const { user } of plan.users) arrived.set(foldUsername(user.username), user.id);
  if (arrived.size === 0) return;
  const own = new Set(batch.tweets.map(({ tweet }) => tweet.id));
  const idOf = (username: string) => arrived.get(foldUsername(username));
  for (const [id, stored] of storedTweets) {
    if (own.has(id)) continue;
    const copy = storedTweetCopy(stored.tweet, stored.versions);
    const resolved = withMentionIds(copy, idOf);
    if (tweetMentionNames(resolved.tweet).length === tweetMentionNames(copy.tweet).length) continue;
    const author = plan.userAfter(resolved.tweet.author_id);
    if (author === undefined)
      throw new Error(`planImport: tweet ${id}'s author ${resolved.tweet.author_id} was not read`);
    plan.tweets.push({ tweet: resolved.tweet, row: importTweetColumns(resolved, author.protected), added: false });
  }
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

/**
 * The users a batch's rows refer to, and the rows of `mentioning` (the stored tweets that name its
 * usernames without an id): for an adapter to read before it plans.
 */
export function usersOfBatch(batch: ImportBatch, mentioning: Iterable<Tweet>): string[] {
  const ids = new Set<string>();
  for (const { user } of batch.users) ids.add(user.id);
  for (const tweet of [...batch.tweets.map((copy) => copy.tweet), ...mentioning]) {
    ids.add(tweet.author_id);
    if (tweet.in_reply_to_user_id !== undefined) ids.add(tweet.in_reply_to_user_id);
  }
  return [...ids];
}

/** The batch's usernames, folded as the mention names table keys them, for an adapter to find `mentioning` by. */
export function namesOfBatch(batch: ImportBatch): string[] {
  return [...new Set(batch.users.map(({ user }) => foldUsername(user.username)))];
}
