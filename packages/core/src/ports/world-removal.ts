// What an operator's removal takes out of the world (`admin remove tweets|users ID…`), on any adapter:
// the ids given and everything that depends on them, in one transaction, after which the world's counts,
// clock and trends are settled as after an import. Removing a user removes their posts, their follows
// both ways, the lists they own, their list and community memberships; removing a post removes its
// retweets (a retweet is a copy of it, and X removes them too), its community entry and its article.
// Replies and quotes stay, as posts that refer to one X deleted do. Counts inside profiles and posts
// (followers, likes, members) are the source's figures and stay as given.
import type { ImportedWorld } from "./world-import.ts";

export const REMOVAL_KINDS = ["tweets", "users"] as const;
export type RemovalKind = (typeof REMOVAL_KINDS)[number];

/** The world's rows a removal deleted, by table. */
export interface RemovedRows {
  users: number;
  tweets: number;
  follows: number;
  lists: number;
  list_members: number;
  list_subscribers: number;
  community_members: number;
  community_tweets: number;
  articles: number;
}

export interface Removal {
  kind: RemovalKind;
  /** The ids given that the world held, each once: they are gone, with what depends on them. */
  removed: string[];
  /** The ids given that the world does not hold. */
  notFound: string[];
  /** Every row deleted, the ids given included. */
  rows: RemovedRows;
  world: ImportedWorld;
}

export interface WorldRemoval {
  /** Removes the `kind` with these ids (each as removableId gives it), and what depends on them, in one transaction. */
  remove(kind: RemovalKind, ids: readonly string[]): Promise<Removal>;
}
