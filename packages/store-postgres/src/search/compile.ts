// Compiles a search AST (meaning fixed in @social/core search/ast.ts) to a condition over `tweets t` for
// PostgreSQL. Text-like leaves (term, phrase, hashtag, cashtag, from, lang, and the tags: filter,
// conversation_id:, to:) become tsquery text over `search_vector` (see ./lexemes.ts); dates, ids and
// counts become B-tree comparisons. Unlike FTS5's
// binary NOT, tsquery negates anywhere (`!`), so every subtree made of text-like leaves only merges into
// one tsquery, and the GIN index answers it in one lookup. User text reaches PostgreSQL only as the
// value of a bound `$n::tsquery` parameter, whose lexemes are quoted.
//
// Relevancy ranks by ts_rank over the text lexemes of the driving tsquery (the whole query when it is
// all text-like, else the text-like part of a top-level AND), quantized to a bucket so that near-equal
// scores fall back to newest first; a query with no positive text to score is ranked by recency.
import { boundMs, idBounds, type SearchNode, timeBounds } from "@social/core";
import { nodeTag } from "@social/store-kit";
import { authorLexeme, langLexeme, phraseQuery, tagLexeme } from "./lexemes.ts";

export type SqlParam = string | number;

export type Condition =
  | { kind: "const"; value: boolean }
  // narrow: every match holds one of the query's lexemes, so the GIN index lists them without being
  // read whole (false for a negation, or an OR with one).
  | { kind: "match"; query: string; ranked: boolean; narrow: boolean }
  | {
      kind: "compare";
      column: "id" | "created_ms" | "like_count" | "retweet_count";
      operator: ">=" | "<" | ">";
      /** Text for ids, which may pass 2^53 (bound as bigint). */
      value: number | string;
    }
  | { kind: "and" | "or"; children: Condition[] }
  | { kind: "not"; child: Condition };

type Match = Extract<Condition, { kind: "match" }>;

export interface SearchPlan {
  /** Every tweet the query selects (before the id range, visibility and paging). */
  condition: Condition;
  /** Set when relevancy ranks: the tsquery whose newest matches are scored, and what else must hold. */
  ranking?: { driver: string; rest?: Condition };
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
  const query = phraseQuery(value);
  return query === undefined ? FALSE : { kind: "match", query, ranked: true, narrow: true };
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
      return lexeme === undefined ? FALSE : { kind: "match", query: lexeme, ranked: false, narrow: true };
    }
    case "lang":
      return { kind: "match", query: langLexeme(node.code), ranked: false, narrow: true };
    case "filter":
    case "conversation":
    case "to": {
      const tag = nodeTag(node);
      return tag === undefined ? FALSE : { kind: "match", query: tagLexeme(tag), ranked: false, narrow: true };
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
      // Already combined: at most one match among its children, merged again here.
      for (const grandchild of child.children) (grandchild.kind === "match" ? matches : rest).push(grandchild);
    } else {
      (child.kind === "match" ? matches : rest).push(child);
    }
  }
  if (matches.length > 0) {
    const query = matches.map((match) => `(${match.query})`).join(absorbing ? " | " : " & ");
    rest.unshift({
      kind: "match",
      query,
      ranked: matches.some((match) => match.ranked),
      narrow: absorbing ? matches.every((match) => match.narrow) : matches.some((match) => match.narrow),
    });
  }
  if (rest.length === 0) return absorbing ? FALSE : TRUE;
  return rest.length === 1 ? (rest[0] as Condition) : { kind, children: rest };
}

function negate(child: Condition): Condition {
  switch (child.kind) {
    case "const":
      return child.value ? FALSE : TRUE;
    case "not":
      return child.child;
    case "match":
      return { kind: "match", query: `!(${child.query})`, ranked: false, narrow: false };
    default:
      return { kind: "not", child };
  }
}

function toCondition(node: SearchNode): Condition {
  switch (node.kind) {
    case "and":
    case "or":
      return combine(node.kind, node.children.map(toCondition));
    case "not":
      return negate(toCondition(node.child));
    default:
      return leaf(node);
  }
}

/** The condition as SQL over `tweets t`, its values numbered by `values`. */
export function renderCondition(condition: Condition, values: Values): string {
  switch (condition.kind) {
    case "const":
      return condition.value ? "TRUE" : "FALSE";
    case "match":
      return `t.search_vector @@ ${values.slot(condition.query, "tsquery")}`;
    case "compare":
      return `t.${condition.column} ${condition.operator} ${values.slot(condition.value, "bigint")}`;
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
      return true;
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
  if (condition.kind === "match") return condition.ranked ? { driver: condition.query } : undefined;
  if (condition.kind !== "and") return undefined;
  const driver = condition.children.find((child): child is Match => child.kind === "match");
  if (driver === undefined || !driver.ranked) return undefined;
  const others = condition.children.filter((child) => child !== driver);
  return {
    driver: driver.query,
    rest: others.length === 1 ? (others[0] as Condition) : { kind: "and", children: others },
  };
}

/** The plan for `query`, or undefined when it can match nothing. */
export function compileSearch(query: SearchNode): SearchPlan | undefined {
  const condition = toCondition(query);
  if (condition.kind === "const" && !condition.value) return undefined;
  const ranked = ranking(condition);
  return { condition, ...(ranked ? { ranking: ranked } : {}), ...timeBounds(query), ...idBounds(query) };
}
