// The small worlds and the queries of the search suite (./search.ts): tweets built from random seeds of
// words that are hostile to every search syntax (FTS5, tsquery, SQL), with ids small or past 2^53, and
// random search trees and query strings over the same words and traits.

import type { WorldRecord } from "@social/core";
import {
  FILTER_NAMES,
  parseQuery,
  type SearchNode,
  SearchSyntaxError,
  type Tweet,
  type UserLookup,
} from "@social/core";
import fc from "fast-check";

const USERNAMES = ["Alice", "bob", "CAROL_1", "dave", "K_9"];
const LANGS = ["en", "EN", "fr", "ja", "zh-tw", "pt-BR", "pt", "und"];
// Written as tweets are: case, diacritics, punctuation, FTS5 syntax and SQL that must stay plain text.
const WORDS = [
  "ai",
  "AI",
  "Bun",
  "Café",
  "cafe",
  "naïve",
  "NAIVE",
  "e\u0301x",
  "x_y",
  "a#b",
  "42",
  "ΣΟΦΙΑΣ",
  "σοφιας",
  "日本",
  "İstanbul",
  "straße",
  "don't",
  "NEAR",
  "AND",
  "OR",
  "NOT",
  "text",
  "author",
  "lang",
  "links",
  "replies",
];
const TAGS = ["#AI", "#ai", "#bun", "#Café", "#日本", "$TSLA", "$aapl", "#ai_ml", "@bob", "@Alice"];
// NUL only in queries: no post holds one, and PostgreSQL's TEXT cannot.
const SYNTAX = ['"', "*", "^", ":", "(", ")", "'", ";", "--", "NEAR(ai bun)", "ai*", "col:ai", "{text}", "a\\b", "!"];
const SEPARATORS = [" ", ", ", "! ", "\n", " - ", " (", ") ", ""];
export const DAY_MS = 86_400_000;
export const FIRST_DAY = Date.UTC(2025, 0, 1);
const DAYS = 6;

/** A few conversations the tweets share (besides their own), for conversation_id:. */
const CONVERSATIONS = ["1000", "1007", "5"];

export interface TweetSeed {
  words: [string, string][];
  author: number;
  lang: string;
  createdMs: number;
  likes: number;
  retweets: number;
  /** The user it replies to, by index, or none. */
  replyTo: number | undefined;
  link: boolean;
  retweet: boolean;
  quote: boolean;
  media: boolean;
  hashtag: boolean;
  mention: boolean;
  /** One of CONVERSATIONS by index, or its own. */
  conversation: number | undefined;
}

export const tweetSeed: fc.Arbitrary<TweetSeed> = fc.record({
  words: fc.array(fc.tuple(fc.constantFrom(...WORDS, ...TAGS, ...SYNTAX), fc.constantFrom(...SEPARATORS)), {
    maxLength: 8,
  }),
  author: fc.nat({ max: USERNAMES.length - 1 }),
  lang: fc.constantFrom(...LANGS),
  createdMs: fc.integer({ min: FIRST_DAY, max: FIRST_DAY + DAYS * DAY_MS - 1 }),
  likes: fc.nat({ max: 20 }),
  retweets: fc.nat({ max: 20 }),
  replyTo: fc.option(fc.nat({ max: USERNAMES.length - 1 }), { nil: undefined }),
  link: fc.boolean(),
  retweet: fc.boolean(),
  quote: fc.boolean(),
  media: fc.boolean(),
  hashtag: fc.boolean(),
  mention: fc.boolean(),
  conversation: fc.option(fc.nat({ max: CONVERSATIONS.length - 1 }), { nil: undefined }),
});

/** A seed of `text` alone, with no other trait. */
export function textSeed(text: string, index: number): TweetSeed {
  return {
    words: [[text, ""]],
    author: index % USERNAMES.length,
    lang: "en",
    createdMs: FIRST_DAY + index,
    likes: 0,
    retweets: 0,
    replyTo: undefined,
    link: false,
    retweet: false,
    quote: false,
    media: false,
    hashtag: false,
    mention: false,
    conversation: undefined,
  };
}

/**
 * The ids of a test world: small ones, or X-sized ones past 2^53 (`base` added to each), which no
 * JavaScript number holds exactly and which both stores must keep, bind and order exactly.
 */
export interface WorldIds {
  base: bigint;
}

export const SMALL_IDS: WorldIds = { base: 0n };
export const X_SIZED_IDS: WorldIds = { base: 1_800_000_000_000_000_000n };

/** The id `local` of a world with `ids`. */
function idAt(ids: WorldIds, local: number | string): string {
  return String(ids.base + BigInt(local));
}

export function localId(ids: WorldIds, id: string): number {
  return Number(BigInt(id) - ids.base);
}

export function newestFirst(a: string, b: string): number {
  const [x, y] = [BigInt(a), BigInt(b)];
  return x === y ? 0 : x > y ? -1 : 1;
}

/** `node` with its ids (conversation_id:, since_id:, until_id:) in the world of `ids`. */
export function shifted(node: SearchNode, ids: WorldIds): SearchNode {
  switch (node.kind) {
    case "and":
    case "or":
      return { kind: node.kind, children: node.children.map((child) => shifted(child, ids)) };
    case "not":
      return { kind: "not", child: shifted(node.child, ids) };
    case "conversation":
    case "since_id":
    case "until_id":
      return { ...node, id: idAt(ids, node.id) };
    default:
      return node;
  }
}

export function user(index: number, ids = SMALL_IDS): UserLookup {
  return {
    id: idAt(ids, 100 + index),
    username: USERNAMES[index] as string,
    name: `User ${index}`,
    description: "",
    created_at: "2020-01-01T00:00:00.000Z",
    // Every other user is verified, for is:verified.
    verified: index % 2 === 0,
    protected: false,
    profile_image_url: "https://example.com/a.png",
    follower_count: 0,
    following_count: 0,
    tweet_count: 0,
    status: "active",
  };
}

/** Ids increase with the seed's position, not with time: the compiler must not rely on either. */
export function tweet(seed: TweetSeed, index: number, ids = SMALL_IDS): Tweet {
  const id = idAt(ids, 1000 + index * 7);
  const text = seed.words.map(([word, separator]) => word + separator).join("") + (seed.link ? " https://t.co/x" : "");
  const urls = seed.link
    ? [{ start: 0, end: 1, url: "https://t.co/x", expanded_url: "https://example.com/", display_url: "example.com" }]
    : [];
  const references = [
    ...(seed.retweet ? [{ type: "retweeted" as const, id: idAt(ids, 999) }] : []),
    ...(seed.quote ? [{ type: "quoted" as const, id: idAt(ids, 998) }] : []),
  ];
  return {
    id,
    text,
    author_id: idAt(ids, 100 + seed.author),
    created_at: new Date(seed.createdMs).toISOString(),
    lang: seed.lang,
    conversation_id: seed.conversation === undefined ? id : idAt(ids, CONVERSATIONS[seed.conversation] as string),
    possibly_sensitive: false,
    like_count: seed.likes,
    retweet_count: seed.retweets,
    reply_count: 0,
    quote_count: 0,
    bookmark_count: 0,
    is_quote_status: seed.quote,
    entities: {
      hashtags: seed.hashtag ? [{ start: 0, end: 3, tag: "ai" }] : [],
      urls,
      mentions: seed.mention ? [{ start: 0, end: 4, username: "bob", id: idAt(ids, 101) }] : [],
    },
    ...(seed.replyTo === undefined ? {} : { in_reply_to_user_id: idAt(ids, 100 + seed.replyTo) }),
    ...(references.length > 0 ? { referenced_tweets: references } : {}),
    ...(seed.quote ? { quoted_tweet_id: idAt(ids, 998) } : {}),
    ...(seed.media ? { media: [{ type: "photo" as const, url: "https://example.com/p.jpg" }] } : {}),
  };
}

export function worldRecords(tweets: readonly Tweet[], ids: WorldIds): WorldRecord[] {
  return [
    ...USERNAMES.map((_, index): WorldRecord => ({ kind: "user", user: user(index, ids) })),
    ...tweets.map((t): WorldRecord => ({ kind: "tweet", tweet: t })),
  ];
}

export const WORLD_META = { seed: "test", clock: new Date(FIRST_DAY + DAYS * DAY_MS).toISOString() };

const day = fc
  .integer({ min: -1, max: DAYS + 1 })
  .map((n) => new Date(FIRST_DAY + n * DAY_MS).toISOString().slice(0, 10));
// Phrases of two and three words, repeats included, as a phrase is matched by its pairs of words too.
const textValue = fc.constantFrom(
  ...WORDS,
  ...SYNTAX,
  "\u0000",
  "ai bun",
  "café ai",
  "ai ai",
  "ai bun café",
  "bun ai bun",
  "#ai",
  "b",
  "",
  "x\u0000y",
);
const leaf: fc.Arbitrary<SearchNode> = fc.oneof(
  textValue.map((value): SearchNode => ({ kind: "term", value })),
  textValue.map((value): SearchNode => ({ kind: "phrase", value })),
  fc
    .constantFrom("ai", "AI", "bun", "café", "日本", "ai_ml", "x")
    .map((value): SearchNode => ({ kind: "hashtag", value })),
  fc.constantFrom("tsla", "AAPL", "x").map((value): SearchNode => ({ kind: "cashtag", value })),
  fc
    .constantFrom(...USERNAMES, "alice", "nobody", "bad name", "\u212A_9")
    .map((username): SearchNode => ({ kind: "from", username })),
  fc.constantFrom(...LANGS, "pt-br", "ZH-TW", "de").map((code): SearchNode => ({ kind: "lang", code })),
  day.map((date): SearchNode => ({ kind: "since", date })),
  day.map((date): SearchNode => ({ kind: "until", date })),
  fc.nat({ max: 25 }).map((count): SearchNode => ({ kind: "min_faves", count })),
  fc.nat({ max: 25 }).map((count): SearchNode => ({ kind: "min_retweets", count })),
  fc.constantFrom(...FILTER_NAMES).map((filter): SearchNode => ({ kind: "filter", filter })),
  fc.constantFrom(...CONVERSATIONS, "1014", "424242").map((id): SearchNode => ({ kind: "conversation", id })),
  fc
    .constantFrom(...USERNAMES, "alice", "nobody", "bad name")
    .map((username): SearchNode => ({ kind: "to", username })),
  // Ids of the tweets (1000 + 7 × index), between them, and past 2^53.
  fc
    .constantFrom("999", "1000", "1014", "1017", "1100", "1800000000000000001")
    .chain((id) => fc.constantFrom<SearchNode>({ kind: "since_id", id }, { kind: "until_id", id })),
  fc.integer({ min: FIRST_DAY - DAY_MS, max: FIRST_DAY + (DAYS + 1) * DAY_MS }).chain((ms) => {
    const date = new Date(ms).toISOString();
    return fc.constantFrom<SearchNode>({ kind: "since", date }, { kind: "until", date });
  }),
);

// Not flattened or simplified on purpose: the compiler must cope with any well-typed tree.
export const searchNode: fc.Arbitrary<SearchNode> = fc.letrec<{ node: SearchNode }>((tie) => ({
  node: fc.oneof(
    { maxDepth: 4, depthSize: "small", withCrossShrink: true },
    leaf,
    tie("node").map((child): SearchNode => ({ kind: "not", child })),
    fc.array(tie("node"), { minLength: 2, maxLength: 3 }).map((children): SearchNode => ({ kind: "and", children })),
    fc.array(tie("node"), { minLength: 2, maxLength: 3 }).map((children): SearchNode => ({ kind: "or", children })),
  ),
})).node;

const queryWord = fc.constantFrom(
  ...WORDS,
  ...TAGS,
  "#ai",
  "$tsla",
  "from:bob",
  "from:ALICE",
  "lang:en",
  "lang:pt-br",
  "filter:links",
  "filter:replies",
  "is:retweet",
  "is:quote",
  "is:reply",
  "is:verified",
  "has:media",
  "has:hashtags",
  "has:mentions",
  "has:links",
  "conversation_id:1007",
  "to:bob",
  "to:CAROL_1",
  "since_id:1014",
  "until_id:1021",
  "since:2025-01-03T12:00:00Z",
  "min_faves:5",
  "min_retweets:10",
  "since:2025-01-03",
  "until:2025-01-04",
  '"ai bun"',
  '"café ai"',
  "OR",
  "(",
  ")",
  "-",
);
export const queryText = fc
  .array(fc.tuple(fc.boolean(), queryWord), { minLength: 1, maxLength: 6 })
  .map((parts) => parts.map(([negated, word]) => (negated ? `-${word}` : word)).join(" "));

export function parsed(text: string): SearchNode | undefined {
  try {
    return parseQuery(text);
  } catch (error) {
    if (error instanceof SearchSyntaxError) return undefined;
    throw error;
  }
}
