// The matcher's step: the posts an import added (the arrivals) matched against every active monitor's
// query and recorded as each monitor's matches, the arrivals removed in the same transaction. A step
// that fails leaves the arrivals it read, which the next step matches again: recording is idempotent.
import { ApiError } from "../errors.ts";
import type { Monitors } from "../ports/monitors.ts";
import type { Store } from "../ports/store.ts";
import type { SearchDocument } from "../search/ast.ts";
import { searchDocument } from "../search/text.ts";
import { type MonitorQuery, Percolator } from "./percolator.ts";
import { parseMonitorQuery } from "./query.ts";

export interface MatchingPorts {
  monitors: Monitors;
  store: Store;
}

/** The percolator of the active queries as of `version`, kept between steps by the process that matches. */
export interface PercolatorCache {
  version?: number;
  percolator?: Percolator;
}

/**
 * Matches and records the waiting arrivals, `limit` at a time, until none is left; resolves to how many
 * posts were matched and how many matches found. The percolator is rebuilt only when the active queries'
 * version has moved since `cache` was filled.
 */
export async function matchArrivals(
  ports: MatchingPorts,
  cache: PercolatorCache,
  limit: number,
): Promise<{ posts: number; matches: number }> {
  const done = { posts: 0, matches: 0 };
  for (;;) {
    const arrivals = await ports.monitors.arrivals(limit);
    if (arrivals.length === 0) return done;
    // Read after the arrivals: a monitor created before a post arrived is in the version read here.
    const percolator = await currentPercolator(ports.monitors, cache);
    const documents = await searchDocuments(
      ports.store,
      arrivals.map(({ tweetId }) => tweetId),
    );
    const matches = documents.flatMap((doc) =>
      percolator.match(doc).map((monitorId) => ({ monitorId, tweetId: doc.id })),
    );
    await ports.monitors.recordMatches(arrivals, matches, Date.now());
    done.posts += arrivals.length;
    done.matches += matches.length;
    if (arrivals.length < limit) return done;
  }
}

async function currentPercolator(monitors: Monitors, cache: PercolatorCache): Promise<Percolator> {
  // The version first: a change committed while the queries are read moves it past the one kept.
  const version = await monitors.queriesVersion();
  if (cache.percolator !== undefined && cache.version === version) return cache.percolator;
  const queries = (await monitors.activeQueries()).flatMap(parsedQuery);
  cache.version = version;
  cache.percolator = new Percolator(queries);
  return cache.percolator;
}

/**
 * A stored query the rules refuse (stored before they changed) can match nothing: it is left out of the
 * index rather than stop every other monitor's matching.
 */
function parsedQuery({ id, query }: { id: string; query: string }): MonitorQuery[] {
  try {
    return [{ id, query: parseMonitorQuery(query) }];
  } catch (error) {
    if (error instanceof ApiError) return [];
    throw error;
  }
}

/**
 * The posts of `ids` the world shows (a post removed or hidden since it arrived is not matched), as the
 * search index sees them: with their author's username and verified flag and the replied-to username.
 */
async function searchDocuments(store: Store, ids: readonly string[]): Promise<SearchDocument[]> {
  const tweets = await store.tweetsByIds(ids);
  const userIds = new Set(tweets.flatMap((tweet) => [tweet.author_id, tweet.in_reply_to_user_id ?? []].flat()));
  const users = new Map((await store.usersByIds([...userIds])).map((user) => [user.id, user]));
  return tweets.flatMap((tweet) => {
    const author = users.get(tweet.author_id);
    if (author === undefined) return [];
    const repliedTo = tweet.in_reply_to_user_id === undefined ? undefined : users.get(tweet.in_reply_to_user_id);
    return [
      searchDocument(tweet, {
        author: { username: author.username, verified: author.verified },
        ...(repliedTo === undefined ? {} : { replyToUsername: repliedTo.username }),
      }),
    ];
  });
}
