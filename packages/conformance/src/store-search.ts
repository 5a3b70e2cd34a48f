// The store suite's search and counts on the default world, checked against core's reference matcher
// on the generator's records. Relevancy ranks by each database's own text score (bm25, ts_rank) and
// ranks only its candidates (the newest matches the index serves, SearchLimits.relevancyCandidates):
// its pages must hold matches only, each once, and the set of them is a committed answer.
import { expect } from "bun:test";
import {
  bucketCount,
  type CountWindow,
  type Cursor,
  countOrigin,
  countWindow,
  matches,
  parseQuery,
  type SearchNode,
  type Store,
  type Tweet,
} from "@social/core";
import { examples } from "@social/fixtures";
import { Answers } from "./golden.ts";
import { byId } from "./store-arguments.ts";
import { isVisible, searchDocumentIn, type WorldTruth } from "./world-truth.ts";

/** The visible tweets `query` matches, newest first: what searchTweets must find. */
function matchesOf(truth: WorldTruth, query: SearchNode): Tweet[] {
  return truth.tweets
    .filter((tweet) => isVisible(truth, tweet) && matches(query, searchDocumentIn(truth, tweet)))
    .sort((a, b) => byId(b.id, a.id));
}

/** The counts per bucket of `window` of the tweets `query` matches: what countTweets must give. */
function countsOf(truth: WorldTruth, query: SearchNode, window: CountWindow): number[] {
  const counts = new Array<number>(bucketCount(window)).fill(0);
  const origin = countOrigin(window);
  for (const tweet of matchesOf(truth, query)) {
    const created = Date.parse(tweet.created_at);
    if (created < window.startMs || created >= window.endMs) continue;
    const bucket = Math.floor((created - origin) / window.sizeMs);
    counts[bucket] = (counts[bucket] ?? 0) + 1;
  }
  return counts;
}

const RANKED = [
  examples.search_query,
  "coffee",
  "#ai",
  '"open source"',
  "coffee OR tea lang:en",
  "since:2020-01-01 until:2030-01-01 data",
  // More than 2,000 matches before the negation: the candidates are the newest 2,000 without replies.
  "the -filter:replies",
  // An OR that holds a negation filters the candidates of `the`: fewer than 2,000 are left.
  "the (and OR -filter:replies)",
];
const UNRANKED = [
  `from:${examples.username}`,
  `from:${examples.username} -filter:replies`,
  "lang:ja",
  "min_faves:50 filter:links",
  "-lang:en",
];

/** The first ten pages of 50 of each query newest first, which must be its first 500 matches (or all). */
export async function checkRecentSearch(store: Store, truth: WorldTruth): Promise<void> {
  let items = 0;
  for (const text of [...RANKED, ...UNRANKED]) {
    const query = parseQuery(text);
    const found: Tweet[] = [];
    let after: Cursor | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await store.searchTweets(query, "recency", { size: 50, after });
      found.push(...page.items);
      if (page.next === undefined) break;
      after = page.next;
    }
    expect(found, text).toEqual(matchesOf(truth, query).slice(0, 500));
    items += found.length;
  }
  expect(items).toBeGreaterThan(1000);
}

/** Every page of each ranked query by relevancy: matches only, each once, the committed set of them. */
export async function checkRelevancySearch(store: Store, truth: WorldTruth): Promise<void> {
  const answers = new Answers("search-relevancy");
  for (const text of RANKED) {
    const query = parseQuery(text);
    const ids: string[] = [];
    let after: Cursor | undefined;
    // A relevancy walk ends within the ranked candidates, here 20 pages.
    for (let pages = 0; ; pages++) {
      if (pages > 20) throw new Error(`the relevancy walk of ${text} does not end`);
      const page = await store.searchTweets(query, "relevancy", { size: 100, after });
      ids.push(...page.items.map((tweet) => tweet.id));
      if (page.next === undefined) break;
      after = page.next;
    }
    const matched = new Set(matchesOf(truth, query).map((tweet) => tweet.id));
    expect(
      ids.filter((id) => !matched.has(id)),
      text,
    ).toEqual([]);
    expect(new Set(ids).size, text).toBe(ids.length);
    expect(ids.length, text).toBeGreaterThan(0);
    await answers.read(`relevancy(${JSON.stringify(text)}) as a set`, async () => ids.sort(byId));
  }
  answers.expectCommitted();
}

/** Counts per minute, hour and day over the world's last days, which must be the matcher's. */
export async function checkCounts(store: Store, truth: WorldTruth): Promise<void> {
  const clock = Date.parse(truth.clock);
  const windows = [
    countWindow("minute", clock),
    countWindow("hour", clock),
    countWindow("day", clock),
    countWindow("hour", clock, clock - 30 * 3_600_000, clock - 3_600_000),
    // Inside units at both ends: the first and last buckets are parts of hours.
    countWindow("hour", clock, clock - 30 * 3_600_000 - 1_017_000, clock - 605_000),
  ];
  const queries = [
    examples.search_query,
    "#ai",
    `from:${examples.username}`,
    "lang:ja -is:retweet",
    "has:media OR has:links",
    "nothing_matches_this",
  ];
  let total = 0;
  for (const text of queries) {
    const query = parseQuery(text);
    for (const window of windows) {
      const counts = await store.countTweets(query, window);
      expect(counts, `${text} in ${JSON.stringify(window)}`).toEqual(countsOf(truth, query, window));
      total += counts.reduce((sum, n) => sum + n, 0);
    }
  }
  expect(total).toBeGreaterThan(100);
}
