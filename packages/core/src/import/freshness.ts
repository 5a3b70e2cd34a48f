// Which copy of a user or tweet is the newer one, for imports that meet an object the world already
// holds (or a file that holds it twice). X's objects carry no time they were fetched at, so their
// metrics tell: posts and followers accumulate. A tweet with a longer edit history was fetched after an
// edit and is newer whatever its metrics. A copy is replaced only by a strictly newer one, so importing
// the same file again changes nothing.
import type { Tweet, UserLookup } from "../model.ts";
import type { OutcomeCounts } from "../ports/world-import.ts";
import type { ImportedTweet, ImportedUser } from "./x-objects.ts";

/** What an import did with one object. */
export type ImportOutcome = "added" | "updated" | "kept";

export function noOutcomes(): OutcomeCounts {
  return { added: 0, updated: 0, kept: 0 };
}

type Rank = readonly number[];

function newer(a: Rank, b: Rank): boolean {
  for (let index = 0; index < a.length; index++) {
    const [x, y] = [a[index] as number, b[index] as number];
    if (x !== y) return x > y;
  }
  return false;
}

/** A copy without public_metrics ranks below any copy with them: it cannot show it is newer. */
function userRank(user: UserLookup, metricsKnown: boolean): Rank {
  return [metricsKnown ? 1 : 0, user.tweet_count, user.follower_count + user.following_count];
}

function tweetRank(tweet: Tweet, versions: number): Rank {
  const { like_count, retweet_count, reply_count, quote_count, bookmark_count } = tweet;
  return [versions, like_count + retweet_count + reply_count + quote_count + bookmark_count];
}

/** Whether `incoming` should replace `stored` (a stored user's metrics count as known). */
export function isNewerUser(incoming: ImportedUser, stored: UserLookup): boolean {
  return newer(userRank(incoming.user, incoming.metricsKnown), userRank(stored, true));
}

/** Of two copies of one user in an import, the one to keep. */
export function newerUserCopy(a: ImportedUser, b: ImportedUser): ImportedUser {
  return newer(userRank(b.user, b.metricsKnown), userRank(a.user, a.metricsKnown)) ? b : a;
}

/** Whether `incoming` should replace the stored tweet, which names `storedVersions` versions. */
export function isNewerTweet(incoming: ImportedTweet, stored: Tweet, storedVersions: number): boolean {
  return newer(tweetRank(incoming.tweet, incoming.versions), tweetRank(stored, storedVersions));
}

/** Of two copies of one tweet in an import, the one to keep. */
export function newerTweetCopy(a: ImportedTweet, b: ImportedTweet): ImportedTweet {
  return newer(tweetRank(b.tweet, b.versions), tweetRank(a.tweet, a.versions)) ? b : a;
}
