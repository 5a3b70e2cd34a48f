// Compiles a search AST (meaning fixed in @social/core search/ast.ts) to a condition over `tweets t` for
// PostgreSQL. Text-like leaves (term, phrase, hashtag, cashtag, from, lang, and the tags: filter,
// conversation_id:, to:) become tsquery text over `search_vector` (see ./lexemes.ts); dates, ids and
// counts become B-tree comparisons. Unlike FTS5's binary NOT, tsquery negates anywhere (`!`), so the
// text-like leaves of a subtree merge into one tsquery, of which the GIN index is asked what it answers
// cheaply in one lookup (the narrow parts, those every match holds a lexeme of, but the common ones; the
// negations of rarer lexemes), the rest being tested on the rows found (see `conjunction`). User text
// reaches PostgreSQL only as the value of a bound `$n::tsquery` parameter, whose lexemes are quoted.
//
// Relevancy ranks the matches of the driving tsquery (the whole query when it is all text-like, else the
// narrow and negated text-like parts of a top-level AND, as SQLite's driving MATCH) by ts_rank over its words
// alone, quantized to a bucket so that near-equal scores fall back to newest first; a query with no
// positive text to score is ranked by recency. Only the words are scored: ts_rank of an AND weighs every
// lexeme of it, and a lang:, from: or filter: lexeme, which no text holds, would score each match 0.
import { boundMs, idBounds, type SearchNode, timeBounds } from "@social/core";
import { nodeTag } from "@social/store-common";
import type { FrequencyOf } from "./frequencies.ts";
import { authorLexeme, langLexeme, lexemesOf, phraseQuery, tagLexeme } from "./lexemes.ts";

export type SqlParam = string | number;

export type Condition =
  | { kind: "const"; value: boolean }
  // narrow: every match holds one of the query's lexemes, so the GIN index lists them without being
  // read whole (false for a negation, or an OR with one).
  // scored: the tsquery of its words (terms, phrases, hashtags, cashtags), which relevancy ranks by.
  // index: what the GIN index is asked instead of `query`, which `query` implies (so that matches merge
  // by merging both), `query` itself being tested on the rows found: a long phrase's pairs without its
  // positions (./lexemes.ts), an AND without its common lexemes or its negations of common ones (see
  // `conjunction`).
  // frequency: the share of tweets holding the commonest lexeme the index is asked for, when the
  // statistics know (./frequencies.ts).
  // negation: a negated match, which an AND's driving tsquery includes, as SQLite's driving MATCH does.
  // synonym: rendered with @@@, @@'s synonym, so that the planner does not take it for the same clause
  // as an equal match rendered with @@ (see ./hours.ts).
  | {
      kind: "match";
      query: string;
      scored?: string;
      index?: string;
      narrow: boolean;
      frequency?: number;
      negation?: true;
      synonym?: true;
    }
  | {
      kind: "compare";
      column: "id" | "created_ms" | "like_count" | "retweet_count";
      operator: ">=" | "<" | ">";
      /** Text for ids, which may pass 2^53 (bound as bigint). */
      value: number | string;
      /** Tested on the rows other conditions find, never through the column's B-tree. */
      filterOnly?: true;
    }
  | { kind: "and" | "or"; children: Condition[] }
  | { kind: "not"; child: Condition };

export type Match = Extract<Condition, { kind: "match" }>;

export interface SearchPlan {
  /** Every tweet the query selects (before the id range, visibility and paging). */
  condition: Condition;
  /** Set when relevancy ranks: the tsquery whose newest matches are scored, and what else must hold. */
  ranking?: { driver: Match; scored: string; rest?: Condition };
  /** Bounds every match lies within (epoch ms, until exclusive), from top-level since: / until:. */
  since?: number;
  until?: number;
  /** Ids every match lies strictly between, from top-level since_id: / until_id:. */
  sinceId?: bigint;
  untilId?: bigint;
}

const TRUE: Condition = { kind: "const", value: true };
const FALSE: Condition = { kind: "const", value: false };

/** Numbered parameters from `first` on, so that each statement can reserve its own leading slots. */
export class Values {
  readonly list: SqlParam[] = [];

  constructor(readonly first: number) {}

  slot(value: SqlParam, type: "bigint" | "tsquery"): string {
    this.list.push(value);
    return `$${this.first + this.list.length - 1}::${type}`;
  }
}

function text(value: string): Condition {
  const phrase = phraseQuery(value);
  return phrase === undefined ? FALSE : { kind: "match", ...phrase, scored: phrase.query, narrow: true };
}

function leaf(node: Exclude<SearchNode, { kind: "and" | "or" | "not" }>): Condition {
  switch (node.kind) {
    case "term":
    case "phrase":
      return text(node.value);
    case "hashtag":
      return text(`#${node.value}`);
    case "cashtag":
      return text(`$${node.value}`);
    case "from": {
      const lexeme = authorLexeme(node.username);
      return lexeme === undefined ? FALSE : { kind: "match", query: lexeme, narrow: true };
    }
    case "lang":
      return { kind: "match", query: langLexeme(node.code), narrow: true };
    case "filter":
    case "conversation":
    case "to": {
      const tag = nodeTag(node);
      return tag === undefined ? FALSE : { kind: "match", query: tagLexeme(tag), narrow: true };
    }
    case "since":
      return { kind: "compare", column: "created_ms", operator: ">=", value: boundMs(node.date) };
    case "until":
      return { kind: "compare", column: "created_ms", operator: "<", value: boundMs(node.date) };
    case "since_id":
      return { kind: "compare", column: "id", operator: ">", value: node.id };
    case "until_id":
      return { kind: "compare", column: "id", operator: "<", value: node.id };
    case "min_faves":
      return { kind: "compare", column: "like_count", operator: ">=", value: node.count };
    case "min_retweets":
      return { kind: "compare", column: "retweet_count", operator: ">=", value: node.count };
  }
}

/** `and`/`or` of `children`, with every tsquery among them merged into one, constants folded away. */
function combine(kind: "and" | "or", children: readonly Condition[]): Condition {
  const absorbing = kind === "or";
  const matches: Match[] = [];
  const rest: Condition[] = [];
  for (const child of children) {
    if (child.kind === "const") {
      if (child.value === absorbing) return child;
    } else if (child.kind === kind) {
      // Already combined: its matches are merged again here, with this level's.
      for (const grandchild of child.children) (grandchild.kind === "match" ? matches : rest).push(grandchild);
    } else {
      (child.kind === "match" ? matches : rest).push(child);
    }
  }
  if (absorbing || !matches.some((match) => match.narrow)) {
    if (matches.length > 0) rest.unshift(merged(matches, absorbing));
  } else {
    // The narrow matches and the negations drive the AND; an OR that holds a negation is tested apart.
    const driving = matches.filter((match) => match.narrow || match.negation);
    const others = matches.filter((match) => !(match.narrow || match.negation));
    if (others.length > 0) rest.unshift(merged(others, false));
    rest.unshift(conjunction(driving));
  }
  if (rest.length === 0) return absorbing ? FALSE : TRUE;
  return rest.length === 1 ? (rest[0] as Condition) : { kind, children: rest };
}

/**
 * The condition with its bounds on time and ids tested on the rows found, for when the search's hours
 * bound it already: their B-tree ranged over the hours would list every tweet in them. (A lower bound on
 * a count can be rare enough for its B-tree to narrow the hours further, so the planner may take it.)
 */
export function withTimeFiltered(condition: Condition): Condition {
  switch (condition.kind) {
    case "compare":
      return condition.column === "id" || condition.column === "created_ms"
        ? { ...condition, filterOnly: true }
        : condition;
    case "not":
      return { kind: "not", child: withTimeFiltered(condition.child) };
    case "and":
    case "or":
      return { kind: condition.kind, children: condition.children.map(withTimeFiltered) };
    default:
      return condition;
  }
}

/** One match for all of `matches`, either of them (`absorbing`) or each. */
function merged(matches: readonly Match[], absorbing: boolean): Match {
  const joined = (queries: readonly string[]) => queries.map((query) => `(${query})`).join(absorbing ? " | " : " & ");
  const scored = matches.flatMap((match) => (match.scored === undefined ? [] : [match.scored]));
  // Each match's query implies its index query, so the merged query implies the merged index query.
  const index = matches.some((match) => match.index !== undefined)
    ? { index: joined(matches.map((match) => match.index ?? match.query)) }
    : {};
  return {
    kind: "match",
    query: joined(matches.map((match) => match.query)),
    ...(scored.length > 0 ? { scored: joined(scored) } : {}),
    ...index,
    narrow: absorbing ? matches.every((match) => match.narrow) : matches.some((match) => match.narrow),
    ...highest(matches.map((match) => match.frequency)),
  };
}

/** The highest of `frequencies` as a match's, when every one is known. */
function highest(frequencies: readonly (number | undefined)[]): { frequency?: number } {
  return frequencies.every((frequency) => frequency !== undefined) ? { frequency: Math.max(...frequencies) } : {};
}

/**
 * A lexeme in at least this share of tweets, beside a rarer one, costs the index more to read than the
 * rows it rules out cost to test (`lang:en read`: every posting of `lang:en` read, to rule out none of
 * the rows of `read`).
 */
export const COMMON = 0.2;
/**
 * A negated lexeme in at most this share of tweets costs the index less than the rows it may rule out:
 * reading the postings of `filter:replies` (32% of tweets) spares `such -filter:replies` reading the
 * rows of `such` that are replies, most of them; reading those of `lang:en` (54%) costs as much and
 * spares none in `plus -lang:en`.
 */
const RARE = 1 / 3;

/**
 * One match for an AND of `matches`, some of them narrow. The index is asked for the narrow ones but the
 * common (`lang:en`, `filter:replies`: hundreds of thousands of postings read to rule out few rows), as
 * long as one is left, and for the negations of rare lexemes (which rule out the rows holding them without
 * reading them); the rest is tested on the rows it finds. Unknown frequencies change nothing: the index
 * is asked for every narrow match and no negation.
 */
function conjunction(matches: readonly Match[]): Match {
  const known = (match: Match, test: (frequency: number) => boolean) =>
    match.frequency !== undefined && test(match.frequency);
  const narrow = matches.filter((match) => match.narrow);
  const uncommon = narrow.filter((match) => !known(match, (frequency) => frequency >= COMMON));
  const asked = [
    ...(uncommon.length > 0 ? uncommon : narrow),
    ...matches.filter((match) => !match.narrow && known(match, (frequency) => frequency <= RARE)),
  ];
  // Asking it of the index costs what its asked members cost.
  const whole = { ...merged(matches, false), ...highest(asked.map((match) => match.frequency)) };
  if (asked.length === matches.length) return whole;
  return { ...whole, index: asked.map((match) => `(${match.index ?? match.query})`).join(" & ") };
}

function negate(child: Condition): Condition {
  switch (child.kind) {
    case "const":
      return child.value ? FALSE : TRUE;
    case "not":
      return child.child;
    case "match":
      return {
        kind: "match",
        query: `!(${child.query})`,
        narrow: false,
        negation: true,
        ...highest([child.frequency]),
      };
    default:
      return { kind: "not", child };
  }
}

function toCondition(node: SearchNode, frequencyOf: FrequencyOf): Condition {
  switch (node.kind) {
    case "and":
    case "or":
      return combine(
        node.kind,
        node.children.map((child) => toCondition(child, frequencyOf)),
      );
    case "not":
      return negate(toCondition(node.child, frequencyOf));
    default: {
      const condition = leaf(node);
      if (condition.kind !== "match") return condition;
      return { ...condition, ...highest(lexemesOf(condition.index ?? condition.query).map(frequencyOf)) };
    }
  }
}

/** The condition as SQL over `tweets t`, its values numbered by `values`. */
export function renderCondition(condition: Condition, values: Values): string {
  switch (condition.kind) {
    case "const":
      return condition.value ? "TRUE" : "FALSE";
    case "match": {
      // The function is the operator's own, which the planner does not match to the index: a match that
      // is not narrow is tested on the rows other conditions find.
      if (!condition.narrow) return `ts_match_vq(t.search_vector, ${values.slot(condition.query, "tsquery")})`;
      const matched = `t.search_vector ${condition.synonym ? "@@@" : "@@"} ${values.slot(condition.index ?? condition.query, "tsquery")}`;
      if (condition.index === undefined) return matched;
      return `${matched} AND ts_match_vq(t.search_vector, ${values.slot(condition.query, "tsquery")})`;
    }
    case "compare": {
      // `+ 0` is not the column, so the planner cannot take its B-tree for it.
      const column = condition.filterOnly ? `(t.${condition.column} + 0)` : `t.${condition.column}`;
      return `${column} ${condition.operator} ${values.slot(condition.value, "bigint")}`;
    }
    case "not":
      return `NOT (${renderCondition(condition.child, values)})`;
    case "and":
    case "or":
      return condition.children
        .map((child) => `(${renderCondition(child, values)})`)
        .join(condition.kind === "and" ? " AND " : " OR ");
  }
}

/**
 * Whether indexes alone can narrow the condition down: a narrow tsquery (GIN), a lower bound on a count
 * or an upper or lower one on the time (B-trees), an AND with one such part, or an OR of them all.
 */
export function narrowsByIndex(condition: Condition): boolean {
  switch (condition.kind) {
    case "match":
      return condition.narrow;
    case "compare":
      return !condition.filterOnly;
    case "and":
      return condition.children.some(narrowsByIndex);
    case "or":
      return condition.children.every(narrowsByIndex);
    default:
      return false;
  }
}

/** The driving tsquery and the rest, when the query has positive text to rank by. */
function ranking(condition: Condition): SearchPlan["ranking"] {
  const scoredMatch = (part: Condition): part is Match & { scored: string } =>
    part.kind === "match" && part.scored !== undefined;
  if (scoredMatch(condition)) return { driver: condition, scored: condition.scored };
  if (condition.kind !== "and") return undefined;
  const driver = condition.children.find(scoredMatch);
  if (driver === undefined) return undefined;
  const others = condition.children.filter((child) => child !== driver);
  return {
    driver,
    scored: driver.scored,
    rest: others.length === 1 ? (others[0] as Condition) : { kind: "and", children: others },
  };
}

/**
 * The plan for `query`, or undefined when it can match nothing; `frequencyOf` decides what the index is
 * asked (./frequencies.ts), never what matches.
 */
export function compileSearch(query: SearchNode, frequencyOf: FrequencyOf): SearchPlan | undefined {
  const condition = toCondition(query, frequencyOf);
  if (condition.kind === "const" && !condition.value) return undefined;
  const ranked = ranking(condition);
  return { condition, ...(ranked ? { ranking: ranked } : {}), ...timeBounds(query), ...idBounds(query) };
}
