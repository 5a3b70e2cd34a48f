// Random ASTs and documents for the search property tests. Leaf values come mostly from a small
// vocabulary that random documents also use, so that random queries match random documents often
// enough for the properties to say something.
import fc from "fast-check";
import { FILTER_NAMES, type SearchDocument, type SearchNode } from "../src/search/ast.ts";

const TERMS = ["ai", "bun", "cafe", "deno", "naive", "x_y", "a#b", "42", "σοφια", "日本"];
const HASHTAGS = ["ai", "bun", "cafe", "日本"];
const CASHTAGS = ["tsla", "aapl"];
const USERNAMES = ["alice", "bob", "carol_1"];
const LANGS = ["en", "fr", "ja", "zh-tw"];
// Written as a tweet would be: case, diacritics and punctuation that tokenizing must see through.
const TEXT_WORDS = ["AI", "ai", "Bun", "Café", "cafe", "deno", "Naïve", "x_y", "a#b", "42", "ΣΟΦΙΑ", "日本"];
const TEXT_TAGS = ["#AI", "#ai", "#bun", "#Café", "#日本", "$TSLA", "$aapl", "#ai_ml", "don't"];
const SEPARATORS = [" ", ", ", "! ", "\n", " - ", " (", ") "];

const MIN_TIME = Date.UTC(2023, 0, 1);
const MAX_TIME = Date.UTC(2026, 11, 31);

const token = fc.oneof(fc.constantFrom(...TERMS), fc.stringMatching(/^[a-z0-9_][a-z0-9_#$]{0,5}$/));
const phraseToken = fc.oneof(token, fc.stringMatching(/^[#$][a-z0-9_]{0,4}$/));
const day = fc
  .date({ min: new Date(MIN_TIME), max: new Date(MAX_TIME), noInvalidDate: true })
  .map((date) => date.toISOString().slice(0, 10));
const count = fc.oneof(fc.nat({ max: 1000 }), fc.nat({ max: 999_999_999 }));
/** Timestamps as parseQuery stores them: toISOString's form. */
const instant = fc.integer({ min: MIN_TIME, max: MAX_TIME }).map((time) => new Date(time).toISOString());
/** Ids as parseQuery stores them (no leading zero); the largest is past 2^53, as real tweet ids are. */
const IDS = ["1", "7", "42", "1000", "2072230523334656", "1800000000000000001"];

/** Every leaf kind, with values normalized the way parseQuery stores them. */
export const leafNode: fc.Arbitrary<SearchNode> = fc.oneof(
  token.map((value): SearchNode => ({ kind: "term", value })),
  fc
    .array(phraseToken, { minLength: 1, maxLength: 4 })
    .map((tokens): SearchNode => ({ kind: "phrase", value: tokens.join(" ") })),
  fc
    .oneof(fc.constantFrom(...HASHTAGS), fc.stringMatching(/^[a-z0-9_]{1,10}$/))
    .map((value): SearchNode => ({ kind: "hashtag", value })),
  fc
    .oneof(fc.constantFrom(...CASHTAGS), fc.stringMatching(/^[a-z][a-z0-9_]{0,14}$/))
    .map((value): SearchNode => ({ kind: "cashtag", value })),
  fc
    .oneof(fc.constantFrom(...USERNAMES), fc.stringMatching(/^[a-z0-9_]{1,15}$/))
    .map((username): SearchNode => ({ kind: "from", username })),
  fc.constantFrom(...LANGS, "pt-br", "und").map((code): SearchNode => ({ kind: "lang", code })),
  day.map((date): SearchNode => ({ kind: "since", date })),
  day.map((date): SearchNode => ({ kind: "until", date })),
  count.map((n): SearchNode => ({ kind: "min_faves", count: n })),
  count.map((n): SearchNode => ({ kind: "min_retweets", count: n })),
  fc.constantFrom(...FILTER_NAMES).map((filter): SearchNode => ({ kind: "filter", filter })),
  fc.constantFrom(...IDS).map((id): SearchNode => ({ kind: "conversation", id })),
  fc
    .oneof(fc.constantFrom(...USERNAMES), fc.stringMatching(/^[a-z0-9_]{1,15}$/))
    .map((username): SearchNode => ({ kind: "to", username })),
  fc.constantFrom(...IDS).map((id): SearchNode => ({ kind: "since_id", id })),
  fc.constantFrom(...IDS).map((id): SearchNode => ({ kind: "until_id", id })),
  instant.map((date): SearchNode => ({ kind: "since", date })),
  instant.map((date): SearchNode => ({ kind: "until", date })),
);

/** Any well-typed AST: and/or with two or more children, but not necessarily flattened or simplified. */
export const searchNode: fc.Arbitrary<SearchNode> = fc.letrec<{
  node: SearchNode;
  not: SearchNode;
  and: SearchNode;
  or: SearchNode;
}>((tie) => ({
  node: fc.oneof(
    { maxDepth: 5, depthSize: "small", withCrossShrink: true },
    leafNode,
    tie("not"),
    tie("and"),
    tie("or"),
  ),
  not: tie("node").map((child): SearchNode => ({ kind: "not", child })),
  and: fc.array(tie("node"), { minLength: 2, maxLength: 3 }).map((children): SearchNode => ({ kind: "and", children })),
  or: fc.array(tie("node"), { minLength: 2, maxLength: 3 }).map((children): SearchNode => ({ kind: "or", children })),
})).node;

/** The shape parseQuery promises: nested and/or of the same kind flattened, double negations removed. */
export function normalize(node: SearchNode): SearchNode {
  if (node.kind === "not") {
    const child = normalize(node.child);
    return child.kind === "not" ? child.child : { kind: "not", child };
  }
  if (node.kind === "and" || node.kind === "or") {
    const children: SearchNode[] = [];
    for (const child of node.children.map(normalize)) {
      if (child.kind === node.kind) children.push(...child.children);
      else children.push(child);
    }
    return { kind: node.kind, children };
  }
  return node;
}

export function leafCount(node: SearchNode): number {
  if (node.kind === "not") return leafCount(node.child);
  if (node.kind === "and" || node.kind === "or") return node.children.reduce((sum, child) => sum + leafCount(child), 0);
  return 1;
}

const textPiece = fc.tuple(fc.constantFrom(...TEXT_WORDS, ...TEXT_TAGS), fc.constantFrom(...SEPARATORS));

export const searchDocumentArbitrary: fc.Arbitrary<SearchDocument> = fc.record({
  text: fc
    .array(textPiece, { maxLength: 10 })
    .map((pieces) => pieces.map(([word, separator]) => word + separator).join("")),
  authorUsername: fc.constantFrom("Alice", "bob", "CAROL_1", "dave"),
  lang: fc.constantFrom(...LANGS, "EN", "und"),
  createdAt: fc.integer({ min: MIN_TIME, max: MAX_TIME }).map((time) => new Date(time).toISOString()),
  likeCount: fc.nat({ max: 1000 }),
  retweetCount: fc.nat({ max: 1000 }),
  hasLinks: fc.boolean(),
  isReply: fc.boolean(),
  isRetweet: fc.boolean(),
  isQuote: fc.boolean(),
  hasMedia: fc.boolean(),
  hasHashtags: fc.boolean(),
  hasMentions: fc.boolean(),
  authorVerified: fc.boolean(),
  id: fc.constantFrom(...IDS),
  conversationId: fc.constantFrom(...IDS),
  replyToUsername: fc.constantFrom("Alice", "bob", "CAROL_1", "dave"),
});
