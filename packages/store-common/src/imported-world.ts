// What an import or a removal leaves in world_meta beside its users and tweets, alike on every adapter:
// the counts, the clock (the newest post of a world that was not generated, since reads count "recent"
// back from it), the worldwide trends of a world that was not generated (its hashtags of the last day,
// as the generator counts its own) and what the demo shows of it.
import { noRemovedRows, type RemovedRows, type Showcase, type Trend } from "@social/core";
import { emptyCounts, type WorldCounts } from "./world.ts";

/** world_meta.seed of a world that was not generated. */
export const IMPORTED_SEED = "imported";

export const WORLDWIDE_WOEID = "1";
/** The trends of an imported world count the hashtags of the day before its clock. */
export const TRENDS_WINDOW_MS = 86_400_000;
export const MAX_IMPORTED_TRENDS = 50;

export interface HashtagCount {
  /** The hashtag as most of its tweets write it, without #. */
  tag: string;
  /** Tweets of the window that carry it. */
  tweets: number;
}

/** Worldwide trends from the window's hashtags, most used first (the store reads at most MAX_IMPORTED_TRENDS). */
export function importedTrends(hashtags: readonly HashtagCount[]): Trend[] {
  return hashtags.map(({ tag, tweets }, index) => ({
    woeid: WORLDWIDE_WOEID,
    rank: index + 1,
    name: `#${tag}`,
    query: `#${tag.toLowerCase()}`,
    tweet_count: tweets,
  }));
}

/**
 * The counts of a world after an import or a removal: users and tweets as stored, the rest as they were
 * less what a removal took.
 */
export function settledCounts(
  previous: WorldCounts | undefined,
  users: number,
  tweets: number,
  removed: RemovedRows = noRemovedRows(),
): WorldCounts {
  const counts = previous ?? emptyCounts();
  const less = (kind: keyof WorldCounts, rows: number) => Math.max(0, counts[kind] - rows);
  return {
    ...counts,
    user: users,
    tweet: tweets,
    follow: less("follow", removed.follows),
    list: less("list", removed.lists),
    list_member: less("list_member", removed.list_members),
    list_subscriber: less("list_subscriber", removed.list_subscribers),
    community_member: less("community_member", removed.community_members),
    article: less("article", removed.articles),
  };
}

/**
 * world_meta.showcase of an imported world: its most followed author with public tweets and its top
 * trend's query (that author's own tweets when the last day had no hashtags); null when it has no
 * public tweets.
 */
export function importedShowcase(username: string | undefined, trends: readonly Trend[]): string | null {
  if (username === undefined) return null;
  return JSON.stringify({ username, query: trends[0]?.query ?? `from:${username}` });
}

export function showcaseOf(origin: string, showcase: string | null): Showcase {
  if (origin !== "imported") return { kind: "examples" };
  if (showcase === null) return { kind: "nothing" };
  const { username, query } = JSON.parse(showcase) as { username: string; query: string };
  return { kind: "imported", username, query };
}
