// The search-operator language of SPEC.md, parsed into the AST of ./ast.ts in one left-to-right pass
// with one lexeme of lookahead. Recursion happens only at "(", whose depth is capped, and every error is
// a SearchSyntaxError, so hostile queries cost linear time and cannot break the stack.
//
// Decisions the matcher and every store compiler rely on:
// - Values are stored normalized, not as written: a term is one token exactly as tokenize() yields it;
//   a phrase is its tokens joined by single spaces; a hashtag / cashtag is its token without the sigil;
//   from and lang are lowercased. A compiler can quote them for FTS5 as they are.
// - A bare word is read like tweet text: "hello!" is the term hello, a word of several tokens is the
//   phrase of them (don't → "don t"), and a word with no token at all ("!!!", a lone "-") is ignored, as
//   X ignores punctuation. A single token starting with # or $ that was not written as a hashtag or
//   cashtag ("!#ai") stays a one-token phrase, so that printing it cannot turn it into a hashtag.
// - "-" negates what follows and may repeat; not(not(x)) is simplified to x ("--a" and "-(-a)" are a).
// - Operator names are lowercase and OR is uppercase; "or" is a term. Every bare word holding ":" must
//   be an operator, so text with a colon goes in quotes.
// - Positions are UTF-16 indices into the query, and lengths count UTF-16 units, as JavaScript does.
import { USERNAME_PATTERN } from "../model.ts";
import { sinceIdBound, untilIdBound } from "../params.ts";
import { FILTER_NAMES, type FilterName, type SearchNode } from "./ast.ts";
import { SearchSyntaxError, type SearchSyntaxProblem } from "./errors.ts";
import { printQuery } from "./print.ts";
import { foldToken, tokenize } from "./text.ts";

export const SEARCH_QUERY_LIMITS = { maxLength: 512, maxLeaves: 50, maxDepth: 10 } as const;
const { maxLength, maxLeaves, maxDepth } = SEARCH_QUERY_LIMITS;

type Lexeme =
  | { type: "open"; position: number; negated: boolean }
  | { type: "close"; position: number }
  | { type: "or"; position: number }
  | { type: "leaf"; position: number; node: SearchNode }
  | { type: "end"; position: number };

const WHITESPACE = /\s/;
const WORD_END = /[\s()"]/;
const HASHTAG = /^[\p{L}\p{N}\p{M}_]+$/u;
const CASHTAG = /^[A-Za-z][A-Za-z0-9_]{0,14}$/;
const LANG = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const INSTANT = /^(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/;
const ID = /^\d{1,19}$/;
const COUNT = /^\d{1,9}$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** X API v2's is: and has: operators, and the filter each one is here. */
export const X_IS: Readonly<Record<string, FilterName>> = {
  retweet: "retweets",
  reply: "replies",
  quote: "quotes",
  verified: "verified",
  nullcast: "nullcast",
};
export const X_HAS: Readonly<Record<string, FilterName>> = {
  links: "links",
  media: "media",
  hashtags: "hashtags",
  mentions: "mentions",
};
/**
 * X API v2 operators (and is:/has: values) this API does not support, most for data it does not hold
 * (places, bios, URLs' titles): refused by name, so that a query written for X fails loudly instead of
 * matching something else.
 */
const X_UNSERVED = new Set([
  "bio",
  "bio_location",
  "bio_name",
  "bounding_box",
  "context",
  "entity",
  "followers_count",
  "following_count",
  "in_reply_to_tweet_id",
  "list",
  "listed_count",
  "place",
  "place_country",
  "point_radius",
  "quotes_of_tweet_id",
  "retweets_of",
  "retweets_of_tweet_id",
  "sample",
  "source",
  "tweets_count",
  "url",
  "url_contains",
  "url_description",
  "url_title",
  "has:cashtags",
  "has:geo",
  "has:images",
  "has:video_link",
  "has:videos",
]);

export function parseQuery(query: string): SearchNode {
  if (query.length > maxLength) {
    fail("query_too_long", maxLength, `the query has ${query.length} characters; at most ${maxLength} are allowed`);
  }
  const node = new Parser(query).parse();
  // Quoting phrases and spacing items can make the canonical form longer than the query; refusing it here
  // keeps the promise that printQuery's output always parses back.
  const canonical = printQuery(node);
  if (canonical.length > maxLength) {
    fail(
      "query_too_long",
      query.length,
      `written canonically the query takes ${canonical.length} characters; at most ${maxLength} are allowed`,
    );
  }
  return node;
}

class Parser {
  private readonly query: string;
  private index = 0;
  private leaves = 0;
  private lookahead: Lexeme;

  constructor(query: string) {
    this.query = query;
    this.lookahead = this.lex();
  }

  parse(): SearchNode {
    const node = this.alternatives(0);
    if (this.lookahead.type === "close") {
      fail("unbalanced_parenthesis", this.lookahead.position, '")" has no matching "("');
    }
    return node ?? fail("empty_query", 0, "the query has nothing to search for");
  }

  /** `a b OR c ...` up to ")" or the end; undefined when there is nothing before it. */
  private alternatives(depth: number): SearchNode | undefined {
    const alternatives: SearchNode[] = [];
    let items: SearchNode[] = [];
    let lastOr: number | undefined;
    for (let lexeme = this.lookahead; lexeme.type !== "end" && lexeme.type !== "close"; lexeme = this.lookahead) {
      this.advance();
      if (lexeme.type === "or") {
        if (items.length === 0) fail("dangling_or", lexeme.position, "OR has nothing to search for before it");
        alternatives.push(combine("and", items));
        items = [];
        lastOr = lexeme.position;
      } else if (lexeme.type === "open") {
        items.push(this.group(lexeme.position, lexeme.negated, depth + 1));
      } else {
        items.push(lexeme.node);
      }
    }
    if (items.length === 0) {
      if (lastOr !== undefined) fail("dangling_or", lastOr, "OR has nothing to search for after it");
      return undefined;
    }
    alternatives.push(combine("and", items));
    return combine("or", alternatives);
  }

  private group(open: number, negated: boolean, depth: number): SearchNode {
    if (depth > maxDepth) fail("too_complex", open, `parentheses are nested more than ${maxDepth} deep`);
    const inner = this.alternatives(depth);
    if (this.lookahead.type !== "close") fail("unbalanced_parenthesis", open, '"(" is never closed');
    this.advance();
    if (inner === undefined) fail("empty_group", open, "the parentheses hold nothing to search for");
    return negated ? negate(inner) : inner;
  }

  private advance(): void {
    this.lookahead = this.lex();
  }

  private lex(): Lexeme {
    const query = this.query;
    for (;;) {
      while (WHITESPACE.test(query.charAt(this.index))) this.index++;
      const start = this.index;
      if (start >= query.length) return { type: "end", position: query.length };
      let negated = false;
      while (query.charAt(this.index) === "-") {
        negated = !negated;
        this.index++;
      }
      const at = this.index;
      const char = query.charAt(at);
      if (char === "(") {
        this.index++;
        return { type: "open", position: at, negated };
      }
      if (char === ")" && at === start) {
        this.index++;
        return { type: "close", position: at };
      }
      if (char === '"') return this.leaf(start, negated, this.phrase(at));
      while (this.index < query.length && !WORD_END.test(query.charAt(this.index))) this.index++;
      const word = query.slice(at, this.index);
      if (word === "OR" && at === start) return { type: "or", position: at };
      const node = readWord(word, at);
      if (node !== undefined) return this.leaf(start, negated, node);
    }
  }

  private leaf(position: number, negated: boolean, node: SearchNode): Lexeme {
    this.leaves++;
    if (this.leaves > maxLeaves) fail("too_complex", position, `the query has more than ${maxLeaves} search terms`);
    return { type: "leaf", position, node: negated ? negate(node) : node };
  }

  private phrase(open: number): SearchNode {
    const close = this.query.indexOf('"', open + 1);
    if (close === -1) fail("unterminated_quote", open, "the quoted phrase is never closed");
    this.index = close + 1;
    const tokens = tokenize(this.query.slice(open + 1, close));
    if (tokens.length === 0) fail("empty_phrase", open, "the quoted phrase has no word to search for");
    return { kind: "phrase", value: tokens.join(" ") };
  }
}

function readWord(word: string, at: number): SearchNode | undefined {
  const colon = word.indexOf(":");
  if (colon !== -1) return readOperator(word.slice(0, colon), word.slice(colon + 1), at, at + colon + 1);
  if (word.startsWith("#")) {
    const value = HASHTAG.test(word.slice(1)) ? foldToken(word.slice(1)) : "";
    if (value === "") fail("bad_hashtag", at, `a hashtag is # then letters, digits or underscores, not ${quote(word)}`);
    return { kind: "hashtag", value };
  }
  if (word.startsWith("$")) {
    if (!CASHTAG.test(word.slice(1))) {
      fail(
        "bad_cashtag",
        at,
        `a cashtag is $ then a letter and up to 14 letters, digits or underscores, not ${quote(word)}`,
      );
    }
    return { kind: "cashtag", value: word.slice(1).toLowerCase() };
  }
  const tokens = tokenize(word);
  const [first] = tokens;
  if (first === undefined) return undefined;
  if (tokens.length === 1 && !first.startsWith("#") && !first.startsWith("$")) return { kind: "term", value: first };
  return { kind: "phrase", value: tokens.join(" ") };
}

type ValueReader = (value: string, at: number) => SearchNode;

const READERS = {
  from: (value, at) => ({ kind: "from", username: userValue("from", value, at) }),
  lang: (value, at) => {
    if (!LANG.test(value)) fail("bad_lang", at, `lang: needs a language code such as en or zh-tw, not ${quote(value)}`);
    return { kind: "lang", code: value.toLowerCase() };
  },
  since: (value, at) => ({ kind: "since", date: dateOrInstant("since", value, at) }),
  until: (value, at) => ({ kind: "until", date: dateOrInstant("until", value, at) }),
  since_id: (value, at) => ({ kind: "since_id", id: sinceIdBound(tweetId("since_id", value, at)) }),
  until_id: (value, at) => ({ kind: "until_id", id: untilIdBound(tweetId("until_id", value, at)) }),
  conversation_id: (value, at) => ({ kind: "conversation", id: tweetId("conversation_id", value, at) }),
  to: (value, at) => ({ kind: "to", username: userValue("to", value, at) }),
  min_faves: (value, at) => ({ kind: "min_faves", count: count("min_faves", value, at) }),
  min_retweets: (value, at) => ({ kind: "min_retweets", count: count("min_retweets", value, at) }),
  filter: (value, at) => {
    if (!(FILTER_NAMES as readonly string[]).includes(value)) {
      fail("bad_filter", at, `filter: accepts ${FILTER_NAMES.join(", ")}, not ${quote(value)}`);
    }
    return { kind: "filter", filter: value as FilterName };
  },
  is: (value, at) => xFilter("is", X_IS, value, at),
  has: (value, at) => xFilter("has", X_HAS, value, at),
} satisfies Record<string, ValueReader>;

/** Every `name:` operator the parser accepts; filter:, is: and has: take the names of FILTER_NAMES. */
export type OperatorName = keyof typeof READERS;

// A Map, not the object literal, so that "constructor:" or "__proto__:" cannot reach Object.prototype.
const OPERATORS = new Map<string, ValueReader>(Object.entries(READERS));

/**
 * from: / to: name a user by username or, as on X, by numeric id (a search joins the id's username, see
 * ./user-ids.ts); lower-cased, as usernames compare.
 */
function userValue(operator: string, value: string, at: number): string {
  if (!USERNAME_PATTERN.test(value) && !ID.test(value)) {
    fail(
      "bad_username",
      at,
      `${operator}: needs a username (1 to 15 letters, digits or underscores) or a user id, not ${quote(value)}`,
    );
  }
  return value.toLowerCase();
}

/** is:retweet, has:media, …: X API v2's spelling of a filter. */
function xFilter(
  operator: string,
  filters: Readonly<Record<string, FilterName>>,
  value: string,
  at: number,
): SearchNode {
  const filter = Object.hasOwn(filters, value) ? filters[value] : undefined;
  if (filter !== undefined) return { kind: "filter", filter };
  if (X_UNSERVED.has(`${operator}:${value}`)) unserved(`${operator}:${value}`, at);
  return fail("bad_filter", at, `${operator}: accepts ${Object.keys(filters).join(", ")}, not ${quote(value)}`);
}

function unserved(operator: string, at: number): never {
  return fail(
    "unsupported_operator",
    at,
    `${quote(operator)} is an X API v2 search operator this API does not support`,
  );
}

function readOperator(name: string, value: string, at: number, valueAt: number): SearchNode {
  const read = OPERATORS.get(name);
  if (read === undefined && X_UNSERVED.has(name)) unserved(`${name}:`, at);
  if (read === undefined) {
    const known = [...OPERATORS.keys()].map((operator) => `${operator}:`).join(" ");
    fail("unknown_operator", at, `${quote(`${name}:`)} is not one of ${known}; put text with a colon in quotes`);
  }
  if (value === "") fail("missing_value", valueAt, `${name}: needs a value right after the colon`);
  return read(value, valueAt);
}

function isCalendarDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
  return days !== undefined && day >= 1 && day <= days;
}

/**
 * A calendar date as written, or an instant (X's start_time and end_time are timestamps) in the one form
 * toISOString prints, so that equal instants are equal values.
 */
function dateOrInstant(operator: string, value: string, at: number): string {
  if (isCalendarDate(value)) return value;
  const instant = INSTANT.exec(value);
  if (instant && isCalendarDate(instant[1] as string)) {
    const ms = Date.parse(value);
    if (!Number.isNaN(ms)) return new Date(ms).toISOString();
  }
  return fail(
    "bad_date",
    at,
    `${operator}: needs a calendar date written YYYY-MM-DD or a UTC timestamp such as 2026-11-20T08:00:00Z, not ${quote(value)}`,
  );
}

/** A tweet id in its canonical digits (no leading zeros): the same id is then the same value. */
function tweetId(operator: string, value: string, at: number): string {
  if (!ID.test(value)) fail("bad_number", at, `${operator}: needs a tweet id of 1 to 19 digits, not ${quote(value)}`);
  return String(BigInt(value));
}

function count(operator: string, value: string, at: number): number {
  if (!COUNT.test(value))
    fail("bad_number", at, `${operator}: needs a whole number of at most 9 digits, not ${quote(value)}`);
  return Number(value);
}

function combine(kind: "and" | "or", children: SearchNode[]): SearchNode {
  const flat = children.flatMap((child) =>
    (child.kind === "and" || child.kind === "or") && child.kind === kind ? child.children : [child],
  );
  const [only] = flat;
  return flat.length === 1 && only !== undefined ? only : { kind, children: flat };
}

function negate(node: SearchNode): SearchNode {
  return node.kind === "not" ? node.child : { kind: "not", child: node };
}

function quote(text: string): string {
  return JSON.stringify(text);
}

function fail(problem: SearchSyntaxProblem, position: number, detail: string): never {
  throw new SearchSyntaxError(problem, position, detail);
}
