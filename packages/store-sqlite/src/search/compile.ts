// Compiles a search AST (meaning fixed in @social/core search/ast.ts) to one SQL statement over
// `tweets` (alias t) and `tweets_fts`, with every value in a bound parameter.
//
// Text-like leaves (term, phrase, hashtag, cashtag, from, lang, filter) become FTS5 phrases confined to
// a column; dates and counts become SQL predicates. The largest subtrees FTS5 can express alone are
// merged into one MATCH. FTS5's NOT is binary (`a NOT b`), so a negation can join a MATCH only next to a
// positive sibling; elsewhere it stays a SQL `NOT (t.id IN (SELECT rowid ... MATCH ?))`, which keeps
// any mix of OR, NOT, text and numbers exact, including a query of negations only.
//
// Plan: when the top level is a conjunction with a positive FTS part, that MATCH drives the query in
// rowid order (rowid = tweet id) with the rest as a filter on the joined row, so a page reads about as
// many index entries as it returns. Otherwise the tweets are scanned newest first through the predicate.
//
// Relevancy ranks by bm25 over the text column of the driving MATCH, quantized to a bucket so that
// near-equal scores fall back to newest first; without a driving MATCH every tweet is in bucket 0.
import type { Cursor, SearchNode, SearchSortOrder } from "@social/core";
import { TWEET_COLUMNS } from "../world/rows.ts";
import { authorToken, ftsPhrase, langToken } from "./fts-columns.ts";

export type SqlParam = string | number;

/** One page's statement: its rows are TweetRow columns plus `bucket` (the relevancy sort key). */
export interface CompiledSearch {
  sql: string;
  params: SqlParam[];
}

/** Keyset positions: recency pages continue after [id], relevancy pages after [bucket, id]. */
export function searchCursor(sortOrder: SearchSortOrder, row: { id: number; bucket: number }): Cursor {
  return sortOrder === "recency" ? [row.id] : [row.bucket, row.id];
}

type Expr =
  | { kind: "const"; value: boolean }
  | { kind: "fts"; query: string }
  | { kind: "sql"; sql: string; params: SqlParam[] }
  | { kind: "and" | "or"; children: Expr[] }
  | { kind: "not"; child: Expr };

const TRUE: Expr = { kind: "const", value: true };
const FALSE: Expr = { kind: "const", value: false };
/** Above every id (ids are < 2^53): the keyset start of a newest-first walk. */
const ID_CEILING = 2 ** 53;
/** bm25 is multiplied by this before rounding to a bucket: three decimals of score. */
const RELEVANCY_SCALE = 1000;

function dayStartMs(date: string): number {
  const ms = Date.parse(`${date}T00:00:00.000Z`);
  if (Number.isNaN(ms)) throw new RangeError(`search: invalid date ${JSON.stringify(date)}`);
  return ms;
}

function leaf(node: Exclude<SearchNode, { kind: "and" | "or" | "not" }>): Expr {
  switch (node.kind) {
    case "term":
    case "phrase":
      return { kind: "fts", query: ftsPhrase("text", node.value) };
    case "hashtag":
      return { kind: "fts", query: ftsPhrase("text", `#${node.value}`) };
    case "cashtag":
      return { kind: "fts", query: ftsPhrase("text", `$${node.value}`) };
    case "from": {
      const token = authorToken(node.username);
      return token === undefined ? FALSE : { kind: "fts", query: ftsPhrase("author", token) };
    }
    case "lang":
      return { kind: "fts", query: ftsPhrase("lang", langToken(node.code)) };
    case "filter":
      return { kind: "fts", query: ftsPhrase("flags", node.filter) };
    case "since":
      return { kind: "sql", sql: "t.created_ms >= ?", params: [dayStartMs(node.date)] };
    case "until":
      return { kind: "sql", sql: "t.created_ms < ?", params: [dayStartMs(node.date)] };
    case "min_faves":
      return { kind: "sql", sql: "t.like_count >= ?", params: [node.count] };
    case "min_retweets":
      return { kind: "sql", sql: "t.retweet_count >= ?", params: [node.count] };
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

/** The FTS5 query for `expr` alone, or undefined when FTS5 cannot express it (SQL leaves, bare NOT). */
function ftsOf(expr: Expr): string | undefined {
  switch (expr.kind) {
    case "fts":
      return expr.query;
    case "or": {
      const parts = expr.children.map(ftsOf);
      return parts.every((part) => part !== undefined) ? parts.map((part) => `(${part})`).join(" OR ") : undefined;
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
function splitConjunction(children: readonly Expr[]): { match?: string; negated?: string; rest: Expr[] } {
  const positives: string[] = [];
  const negatives: string[] = [];
  const rest: Expr[] = [];
  for (const child of children) {
    const query = child.kind === "not" ? ftsOf(child.child) : ftsOf(child);
    if (query === undefined) rest.push(child);
    else (child.kind === "not" ? negatives : positives).push(`(${query})`);
  }
  const anyOf = negatives.join(" OR ");
  if (positives.length === 0) return negatives.length === 0 ? { rest } : { negated: anyOf, rest };
  const allOf = positives.join(" AND ");
  return { match: negatives.length === 0 ? allOf : `(${allOf}) NOT (${anyOf})`, rest };
}

const IN_MATCH = "t.id IN (SELECT rowid FROM tweets_fts WHERE tweets_fts MATCH ?)";

/** Appends `expr` as a SQL predicate over `t`, pushing its parameters in textual order. */
function sqlOf(expr: Expr, params: SqlParam[]): string {
  switch (expr.kind) {
    case "const":
      return expr.value ? "1" : "0";
    case "sql":
      params.push(...expr.params);
      return expr.sql;
    case "fts":
      params.push(expr.query);
      return IN_MATCH;
    case "not":
      return `NOT (${sqlOf(expr.child, params)})`;
    case "and": {
      const { match, negated, rest } = splitConjunction(expr.children);
      const parts: string[] = [];
      if (match !== undefined) parts.push(sqlOf({ kind: "fts", query: match }, params));
      if (negated !== undefined) parts.push(`NOT (${sqlOf({ kind: "fts", query: negated }, params)})`);
      for (const child of rest) parts.push(`(${sqlOf(child, params)})`);
      return parts.join(" AND ");
    }
    case "or": {
      const queries: string[] = [];
      const rest: Expr[] = [];
      for (const child of expr.children) {
        const query = ftsOf(child);
        if (query === undefined) rest.push(child);
        else queries.push(`(${query})`);
      }
      const parts: string[] = [];
      if (queries.length > 0) parts.push(sqlOf({ kind: "fts", query: queries.join(" OR ") }, params));
      for (const child of rest) parts.push(`(${sqlOf(child, params)})`);
      return parts.join(" OR ");
    }
  }
}

/** The MATCH that drives the query and the predicate left for the joined rows, when there is one. */
function drivingMatch(expr: Expr): { match: string; rest?: Expr } | undefined {
  const whole = ftsOf(expr);
  if (whole !== undefined) return { match: whole };
  if (expr.kind !== "and") return undefined;
  const { match, rest } = splitConjunction(expr.children);
  if (match === undefined) return undefined;
  return { match, rest: rest.length === 1 ? rest[0] : { kind: "and", children: rest } };
}

/** The keyset position to continue after; the first page starts above every row. */
function position(sortOrder: SearchSortOrder, after: Cursor | undefined): { bucket: number; id: number } {
  if (after === undefined) return { bucket: -ID_CEILING, id: ID_CEILING };
  const expected = sortOrder === "recency" ? 1 : 2;
  if (after.length !== expected || !after.every((value) => typeof value === "number")) {
    throw new RangeError("search: malformed cursor");
  }
  return sortOrder === "recency"
    ? { bucket: 0, id: after[0] as number }
    : { bucket: after[0] as number, id: after[1] as number };
}

/**
 * The statement for one page of `query`: `limit` rows (ask for one more than the page size to learn
 * whether another page exists) after the keyset position `after`. Undefined when the query can match
 * nothing.
 */
export function compileSearch(
  query: SearchNode,
  sortOrder: SearchSortOrder,
  limit: number,
  after?: Cursor,
): CompiledSearch | undefined {
  const expr = toExpr(query);
  if (expr.kind === "const" && !expr.value) return undefined;
  const from = position(sortOrder, after);
  const driver = drivingMatch(expr);

  if (driver === undefined) {
    // No driving MATCH means no text score: every row is in bucket 0 and only the id moves.
    const params: SqlParam[] = [from.id];
    const predicate = expr.kind === "const" ? "" : ` AND (${sqlOf(expr, params)})`;
    params.push(limit);
    return {
      sql: `SELECT ${TWEET_COLUMNS}, 0 AS bucket FROM tweets t WHERE t.id < ?${predicate} ORDER BY t.id DESC LIMIT ?`,
      params,
    };
  }

  const restParams: SqlParam[] = [];
  const rest = driver.rest === undefined ? "" : ` AND (${sqlOf(driver.rest, restParams)})`;
  if (sortOrder === "recency") {
    return {
      sql:
        `SELECT ${TWEET_COLUMNS}, 0 AS bucket FROM tweets_fts JOIN tweets t ON t.id = tweets_fts.rowid ` +
        `WHERE tweets_fts MATCH ? AND tweets_fts.rowid < ?${rest} ORDER BY tweets_fts.rowid DESC LIMIT ?`,
      params: [driver.match, from.id, ...restParams, limit],
    };
  }
  return {
    sql:
      `SELECT ${TWEET_COLUMNS}, m.bucket FROM (SELECT rowid AS id, ` +
      `CAST(round(bm25(tweets_fts, 1.0, 0.0, 0.0, 0.0) * ${RELEVANCY_SCALE}) AS INTEGER) AS bucket ` +
      "FROM tweets_fts WHERE tweets_fts MATCH ?) m JOIN tweets t ON t.id = m.id " +
      `WHERE (m.bucket > ? OR (m.bucket = ? AND m.id < ?))${rest} ORDER BY m.bucket, m.id DESC LIMIT ?`,
    params: [driver.match, from.bucket, from.bucket, from.id, ...restParams, limit],
  };
}
