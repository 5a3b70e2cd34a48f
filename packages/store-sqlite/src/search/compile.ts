// Compiles a search AST (meaning fixed in @social/core search/ast.ts) to one SQL statement over
// `tweets` (alias t) and `tweets_fts`, with every value in a bound parameter: user text only ever
// reaches FTS5 as a double-quoted string inside a parameter (see ./fts-columns.ts).
//
// Text-like leaves (term, phrase, hashtag, cashtag, from, lang, filter) become FTS5 phrases confined to
// a column; dates and counts become SQL comparisons. The largest subtrees FTS5 can express alone are
// merged into one MATCH. FTS5's NOT is binary (`a NOT b`), so a negation can join a MATCH only next to a
// positive sibling; elsewhere it stays a SQL `NOT (t.id IN (SELECT rowid ... MATCH ?))`, which keeps
// any mix of OR, NOT, text and numbers exact, including a query of negations only.
//
// When the top level is a conjunction with a positive FTS part, that MATCH drives the statement in
// rowid order (rowid = tweet id) with the rest as a filter on the joined row. Otherwise the statement
// walks the tweets newest first through the predicate. Either way every statement is confined to an
// id range, so ./execute.ts can run it window by window with bounded work per step.
//
// Relevancy ranks by bm25 over the text column of the driving MATCH, quantized to a bucket so that
// near-equal scores fall back to newest first; without a text phrase to score, every tweet is in
// bucket 0 and relevancy is recency. The ranked statement scores the driving matches from ?1 up; the
// executor sets ?1 so that they are the newest few thousand (see `candidateQuery`).
import { boundMs, idBounds, type SearchNode, type SearchSortOrder, timeBounds } from "@social/core";
import { authorToken, langToken, nodeTag, TWEET_COLUMNS } from "@social/store-common";
import { VISIBLE } from "../world/rows.ts";
import { ftsPhrase } from "./fts-columns.ts";

export type SqlParam = string | number | bigint;

/**
 * A search query ready to run. Every statement binds the same first five slots, ?1 lowest id, ?2 id
 * bound (exclusive), ?3 row limit, ?4 and ?5 the relevancy keyset (bucket, id); the query's own values
 * follow from ?6 on. Every FTS5 lookup is confined to ids in [?1, ?2), so the executor can walk the
 * tweets in id windows and a lookup never reads beyond the window.
 */
export interface SearchPlan {
  sql: string;
  values: SqlParam[];
  /** Ordered by bm25 bucket then newest; otherwise newest first with every row in bucket 0. */
  ranked: boolean;
  /** For ranked plans, the driving FTS5 query alone: its newest matches are the ones ranked. */
  candidateQuery?: string;
  /** Bounds every match must lie within (epoch ms, until exclusive), from top-level since: / until:. */
  since?: number;
  until?: number;
  /** Ids every match must lie strictly between, from top-level since_id: / until_id:. */
  sinceId?: bigint;
  untilId?: bigint;
}

type Expr =
  | { kind: "const"; value: boolean }
  | { kind: "fts"; query: string; ranked: boolean }
  | {
      kind: "compare";
      column: "id" | "created_ms" | "like_count" | "retweet_count";
      operator: ">=" | "<" | ">";
      value: number | bigint;
    }
  | { kind: "and" | "or"; children: Expr[] }
  | { kind: "not"; child: Expr };

const TRUE: Expr = { kind: "const", value: true };
const FALSE: Expr = { kind: "const", value: false };
const FIRST_VALUE_SLOT = 6;
/** bm25 is multiplied by this before rounding to a bucket: three decimals of score. */
const RELEVANCY_SCALE = 1000;

/** Text phrases are the only leaves bm25 scores: the other columns are weighted 0. */
function textPhrase(value: string): Expr {
  return { kind: "fts", query: ftsPhrase("text", value), ranked: true };
}

function leaf(node: Exclude<SearchNode, { kind: "and" | "or" | "not" }>): Expr {
  switch (node.kind) {
    case "term":
    case "phrase":
      return textPhrase(node.value);
    case "hashtag":
      return textPhrase(`#${node.value}`);
    case "cashtag":
      return textPhrase(`$${node.value}`);
    case "from": {
      const token = authorToken(node.username);
      return token === undefined ? FALSE : { kind: "fts", query: ftsPhrase("author", token), ranked: false };
    }
    case "lang":
      return { kind: "fts", query: ftsPhrase("lang", langToken(node.code)), ranked: false };
    case "filter":
    case "conversation":
    case "to": {
      const tag = nodeTag(node);
      return tag === undefined ? FALSE : { kind: "fts", query: ftsPhrase("flags", tag), ranked: false };
    }
    case "since":
      return { kind: "compare", column: "created_ms", operator: ">=", value: boundMs(node.date) };
    case "until":
      return { kind: "compare", column: "created_ms", operator: "<", value: boundMs(node.date) };
    case "since_id":
      return { kind: "compare", column: "id", operator: ">", value: BigInt(node.id) };
    case "until_id":
      return { kind: "compare", column: "id", operator: "<", value: BigInt(node.id) };
    case "min_faves":
      return { kind: "compare", column: "like_count", operator: ">=", value: node.count };
    case "min_retweets":
      return { kind: "compare", column: "retweet_count", operator: ">=", value: node.count };
  }
}

/** The AST as an Expr with constants folded away (a constant survives only as the whole query). */
function toExpr(node: SearchNode): Expr {
  switch (node.kind) {
    case "and":
    case "or": {
      const absorbing = node.kind === "or";
      const children: Expr[] = [];
      for (const child of node.children.map(toExpr)) {
        if (child.kind === "const") {
          if (child.value === absorbing) return child;
        } else if (child.kind === node.kind) {
          children.push(...child.children);
        } else {
          children.push(child);
        }
      }
      if (children.length === 0) return absorbing ? FALSE : TRUE;
      return children.length === 1 ? (children[0] as Expr) : { kind: node.kind, children };
    }
    case "not": {
      const child = toExpr(node.child);
      if (child.kind === "const") return child.value ? FALSE : TRUE;
      return child.kind === "not" ? child.child : { kind: "not", child };
    }
    default:
      return leaf(node);
  }
}

interface FtsQuery {
  query: string;
  ranked: boolean;
}

/** The FTS5 query for `expr` alone, or undefined when FTS5 cannot express it (comparisons, bare NOT). */
function ftsOf(expr: Expr): FtsQuery | undefined {
  switch (expr.kind) {
    case "fts":
      return expr;
    case "or": {
      const parts = expr.children.map(ftsOf);
      if (!parts.every((part) => part !== undefined)) return undefined;
      return { query: parts.map((part) => `(${part.query})`).join(" OR "), ranked: parts.some((part) => part.ranked) };
    }
    case "and": {
      const split = splitConjunction(expr.children);
      return split.rest.length === 0 ? split.match : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * Splits the children of an AND into one MATCH (the FTS-expressible positives, minus the
 * FTS-expressible negations) and the rest. Without a positive, negations cannot go into a MATCH and
 * are returned as `negated` for a SQL NOT.
 */
function splitConjunction(children: readonly Expr[]): { match?: FtsQuery; negated?: FtsQuery; rest: Expr[] } {
  const positives: FtsQuery[] = [];
  const negatives: FtsQuery[] = [];
  const rest: Expr[] = [];
  for (const child of children) {
    const fts = child.kind === "not" ? ftsOf(child.child) : ftsOf(child);
    if (fts === undefined) rest.push(child);
    else (child.kind === "not" ? negatives : positives).push(fts);
  }
  const anyOf = negatives.map((part) => `(${part.query})`).join(" OR ");
  if (positives.length === 0)
    return negatives.length === 0 ? { rest } : { negated: { query: anyOf, ranked: false }, rest };
  const allOf = positives.map((part) => `(${part.query})`).join(" AND ");
  const ranked = positives.some((part) => part.ranked);
  return { match: { query: negatives.length === 0 ? allOf : `(${allOf}) NOT (${anyOf})`, ranked }, rest };
}

/** Numbered parameters after the shared slots, so a value's slot does not depend on where it is used. */
class Values {
  readonly list: SqlParam[] = [];

  constructor(readonly first = FIRST_VALUE_SLOT) {}

  slot(value: SqlParam): string {
    this.list.push(value);
    return `?${this.first + this.list.length - 1}`;
  }
}

/** Membership in an FTS5 match, confined to the ids the statement covers. */
function inMatch(query: string, values: Values): string {
  return `t.id IN (SELECT rowid FROM tweets_fts WHERE tweets_fts MATCH ${values.slot(query)} AND rowid >= ?1 AND rowid < ?2)`;
}

/** `expr` as a SQL predicate over `t`. */
function sqlOf(expr: Expr, values: Values): string {
  switch (expr.kind) {
    case "const":
      return expr.value ? "1" : "0";
    case "compare":
      return `t.${expr.column} ${expr.operator} ${values.slot(expr.value)}`;
    case "fts":
      return inMatch(expr.query, values);
    case "not":
      return `NOT (${sqlOf(expr.child, values)})`;
    case "and": {
      const { match, negated, rest } = splitConjunction(expr.children);
      const parts: string[] = [];
      if (match !== undefined) parts.push(inMatch(match.query, values));
      if (negated !== undefined) parts.push(`NOT (${inMatch(negated.query, values)})`);
      for (const child of rest) parts.push(`(${sqlOf(child, values)})`);
      return parts.join(" AND ");
    }
    case "or": {
      const queries: string[] = [];
      const rest: Expr[] = [];
      for (const child of expr.children) {
        const fts = ftsOf(child);
        if (fts === undefined) rest.push(child);
        else queries.push(`(${fts.query})`);
      }
      const parts: string[] = [];
      if (queries.length > 0) parts.push(inMatch(queries.join(" OR "), values));
      for (const child of rest) parts.push(`(${sqlOf(child, values)})`);
      return parts.join(" OR ");
    }
  }
}

/** The MATCH that drives the query and the predicate left for the joined rows, when there is one. */
function drivingMatch(expr: Expr): { match: FtsQuery; rest?: Expr } | undefined {
  const whole = ftsOf(expr);
  if (whole !== undefined) return { match: whole };
  if (expr.kind !== "and") return undefined;
  const { match, rest } = splitConjunction(expr.children);
  if (match === undefined) return undefined;
  return { match, rest: rest.length === 1 ? rest[0] : { kind: "and", children: rest } };
}

const RANK = `CAST(round(bm25(tweets_fts, 1.0, 0.0, 0.0, 0.0) * ${RELEVANCY_SCALE}) AS INTEGER)`;

/**
 * Where a statement's rows come from, confined to the ids [?1, ?2): the FTS5 index when a MATCH drives
 * the query (then `rowid` is its rowid), else the tweets, skipping protected authors' (the index holds
 * none of theirs).
 */
interface RowSource {
  from: string;
  where: string;
  rowid: string;
  driver?: { match: FtsQuery; slot: string; rest: string };
}

function rowSource(expr: Expr, values: Values): RowSource {
  const driver = drivingMatch(expr);
  if (driver === undefined) {
    const predicate = expr.kind === "const" ? "" : ` AND (${sqlOf(expr, values)})`;
    return { from: "tweets t", where: `t.id >= ?1 AND t.id < ?2 AND ${VISIBLE}${predicate}`, rowid: "t.id" };
  }
  const slot = values.slot(driver.match.query);
  const rest = driver.rest === undefined ? "" : ` AND (${sqlOf(driver.rest, values)})`;
  return {
    from: "tweets_fts JOIN tweets t ON t.id = tweets_fts.rowid",
    where: `tweets_fts MATCH ${slot} AND tweets_fts.rowid >= ?1 AND tweets_fts.rowid < ?2${rest}`,
    rowid: "tweets_fts.rowid",
    driver: { match: driver.match, slot, rest },
  };
}

/**
 * The statement that counts `query`'s matches per bucket in [?1, ?2): rows as (bucket, n), a row's bucket
 * being its units of ?4 ms after ?3 (the count's origin); its values start at ?5.
 */
export function compileCount(query: SearchNode): SearchPlan | undefined {
  const expr = toExpr(query);
  if (expr.kind === "const" && !expr.value) return undefined;
  const values = new Values(5);
  const source = rowSource(expr, values);
  return {
    sql: `SELECT (t.created_ms - ?3) / ?4 AS bucket, count(*) AS n FROM ${source.from} WHERE ${source.where} GROUP BY bucket`,
    values: values.list,
    ranked: false,
    ...timeBounds(query),
    ...idBounds(query),
  };
}

/** The plan for `query`, or undefined when it can match nothing. */
export function compileSearch(query: SearchNode, sortOrder: SearchSortOrder): SearchPlan | undefined {
  const expr = toExpr(query);
  if (expr.kind === "const" && !expr.value) return undefined;
  const bounds = { ...timeBounds(query), ...idBounds(query) };
  const values = new Values();
  const source = rowSource(expr, values);
  const { driver } = source;
  if (driver === undefined || sortOrder === "recency" || !driver.match.ranked) {
    return {
      sql: `SELECT ${TWEET_COLUMNS}, 0 AS bucket FROM ${source.from} WHERE ${source.where} ORDER BY ${source.rowid} DESC LIMIT ?3`,
      values: values.list,
      ranked: false,
      ...bounds,
    };
  }
  // Ranks are computed and the page chosen on the FTS rows alone; only the page's rows are read whole.
  const join = driver.rest === "" ? "" : " JOIN tweets t ON t.id = tweets_fts.rowid";
  return {
    sql:
      `SELECT ${TWEET_COLUMNS}, m.bucket FROM (SELECT tweets_fts.rowid AS id, ${RANK} AS bucket FROM tweets_fts${join} ` +
      `WHERE ${source.where} AND (bucket > ?4 OR (bucket = ?4 AND tweets_fts.rowid < ?5)) ` +
      "ORDER BY bucket, tweets_fts.rowid DESC LIMIT ?3) m JOIN tweets t ON t.id = m.id ORDER BY m.bucket, m.id DESC",
    values: values.list,
    ranked: true,
    candidateQuery: driver.match.query,
    ...bounds,
  };
}
