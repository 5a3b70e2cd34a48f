// The search language as a customer reads it: one row per form the parser accepts, with what it matches
// and an example query. The named operators are keyed by the parser's own names and the filters come
// from FILTER_NAMES and X's is:/has: spellings, so an operator added to the parser fails to compile
// here until it is described.
import type { ExampleName } from "../endpoint.ts";
import { FILTER_NAMES, type FilterName } from "./ast.ts";
import { type OperatorName, X_HAS, X_IS } from "./parse.ts";

/** The world's example values (fixtures/examples.json), which make the examples match something. */
export type OperatorExamples = Readonly<Record<ExampleName, string>>;

export interface SearchOperatorRow {
  /** How it is written. */
  syntax: string;
  meaning: string;
  example: (world: OperatorExamples) => string;
}

const GRAMMAR: readonly SearchOperatorRow[] = [
  { syntax: "word", meaning: "The text holds the word (whole words, any case or accent).", example: () => "coffee" },
  { syntax: '"phrase"', meaning: "The words in this order, next to each other.", example: () => '"good morning"' },
  { syntax: "a b", meaning: "Both: items side by side must all match.", example: () => "coffee sending" },
  { syntax: "a OR b", meaning: "Either (OR in capitals; lower-case or is a word).", example: () => "coffee OR tea" },
  { syntax: "( )", meaning: "Groups items, e.g. to combine OR with others.", example: () => "(coffee OR tea) lang:en" },
  { syntax: "-", meaning: "Not: leaves out what follows.", example: () => "coffee -tea" },
  { syntax: "#hashtag", meaning: "The text holds the hashtag (#ai is not the word ai).", example: () => "#ai" },
  { syntax: "$cashtag", meaning: "The text holds the cashtag.", example: () => "$btc" },
];

const NAMED: Readonly<Record<Exclude<OperatorName, "filter" | "is" | "has">, Omit<SearchOperatorRow, "syntax">>> = {
  from: { meaning: "Posted by this user (username or user id).", example: (world) => `from:${world.username}` },
  to: { meaning: "Replies to this user (username or user id).", example: (world) => `to:${world.username}` },
  lang: { meaning: "Written in this language (a code such as en, es, ja).", example: () => "lang:es" },
  since: {
    meaning: "Posted on or after this day (YYYY-MM-DD) or UTC instant.",
    example: () => "coffee since:2026-11-18",
  },
  until: {
    meaning: "Posted before this day or UTC instant (exclusive).",
    example: () => "coffee until:2026-11-19",
  },
  since_id: { meaning: "Tweet ids greater than this one (newer).", example: (world) => `since_id:${world.tweet_id}` },
  until_id: { meaning: "Tweet ids smaller than this one (older).", example: (world) => `until_id:${world.tweet_id}` },
  conversation_id: {
    meaning: "Tweets of the conversation that this tweet started.",
    example: (world) => `conversation_id:${world.thread_tweet_id}`,
  },
  min_faves: { meaning: "At least this many likes.", example: () => "min_faves:100" },
  min_retweets: { meaning: "At least this many retweets.", example: () => "min_retweets:50" },
};

const FILTER_MEANINGS: Readonly<Record<FilterName, string>> = {
  links: "Holds a link.",
  replies: "Is a reply.",
  retweets: "Is a retweet.",
  quotes: "Quotes another tweet.",
  media: "Carries photos or video.",
  hashtags: "Holds a hashtag.",
  mentions: "Mentions a user.",
  verified: "Its author is verified.",
  nullcast: "Promoted-only posts, which this API never holds: used negated, as queries written for X do.",
};

/** X's spelling of a filter (is:reply, has:links), when it has one. */
function xSpelling(filter: FilterName): string | undefined {
  const is = Object.keys(X_IS).find((name) => X_IS[name] === filter);
  if (is) return `is:${is}`;
  const has = Object.keys(X_HAS).find((name) => X_HAS[name] === filter);
  return has ? `has:${has}` : undefined;
}

const FILTERS: readonly SearchOperatorRow[] = FILTER_NAMES.map((filter) => {
  const x = xSpelling(filter);
  return {
    syntax: x ? `filter:${filter} or ${x}` : `filter:${filter}`,
    meaning: FILTER_MEANINGS[filter],
    example: () => (filter === "nullcast" ? `coffee -${x ?? "filter:nullcast"}` : (x ?? `filter:${filter}`)),
  };
});

/** Every form of the search language, in the order a reader learns it. */
export const SEARCH_OPERATORS: readonly SearchOperatorRow[] = [
  ...GRAMMAR,
  ...Object.entries(NAMED).map(([name, row]) => ({ syntax: `${name}:`, ...row })),
  ...FILTERS,
];
