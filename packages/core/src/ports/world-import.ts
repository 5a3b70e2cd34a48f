// What an import writes into: the world's users and tweets on any adapter, with their search index.
// Decisions (what is newer, whose username it is, which author is missing) are the importer's; an
// adapter reads what it is asked, writes a batch in one transaction and derives the rest of the world.
import type { ImportOutcome } from "../import/freshness.ts";
import type { ImportedTweet, ImportedUser } from "../import/x-objects.ts";

export interface ImportBatch {
  /** At most one copy per id, each user's username free or already its own. */
  users: readonly ImportedUser[];
  /** At most one copy per id, each by an author of this batch or of the world. */
  tweets: readonly ImportedTweet[];
  /** For a followed file: where its import stands once this batch is in, written in the batch's transaction. */
  position?: FollowPosition;
}

/**
 * Where the import of a followed file (`import --follow`) stands: the end of the last line committed.
 * The file is known by its path and, to tell a file replaced at that path, its device and inode.
 */
export interface FollowPosition {
  path: string;
  device: string;
  inode: string;
  /** Bytes from the file's start to the end of the last committed line, its newline included. */
  offset: number;
  /** That line's number (1 for the first), for refusals after a restart. */
  line: number;
}

export type OutcomeCounts = Record<ImportOutcome, number>;

export interface BatchCounts {
  users: OutcomeCounts;
  tweets: OutcomeCounts;
}

/** What the world is once an import is done. */
export interface ImportedWorld {
  users: number;
  tweets: number;
  /** The world's clock: the newest post, for a world that was not generated. */
  clock: string;
  /** The top trends of woeid 1 (recomputed from the last day's hashtags for a world that was not generated). */
  trends: readonly string[];
}

export interface WorldImport {
  /**
   * Which of `userIds` the world holds as users, and which user holds each of `usernames` (compared as
   * folded by foldUsername).
   */
  lookUp(
    userIds: readonly string[],
    usernames: readonly string[],
  ): Promise<{ users: ReadonlySet<string>; usernames: ReadonlyMap<string, string> }>;
  /**
   * Adds or replaces `batch`'s objects in one transaction with the search index: an object the world
   * holds is replaced only by a newer copy (../import/freshness.ts), and what depends on a replaced user (their
   * tweets' author and verified tags, replies' to: tags, hidden tweets of a protected account) follows.
   */
  write(batch: ImportBatch): Promise<BatchCounts>;
  /** The position the last batch of the followed file at `path` wrote, or undefined when none did. */
  followPosition(path: string): Promise<FollowPosition | undefined>;
  /**
   * After the last batch (or, while a file is followed, after a batch): the world's counts, clock and
   * order of ids, and trends for a world not generated.
   */
  finish(): Promise<ImportedWorld>;
}
