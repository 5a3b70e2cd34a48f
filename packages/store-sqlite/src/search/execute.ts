// Runs a compiled search plan for one page. Two things happen here rather than in SQL:
//
// - When the world's tweet ids follow their creation time (the writer records whether they do), a
//   top-level since: / until: becomes an id range, which the FTS5 index and the primary key seek to
//   directly instead of filtering every newer tweet.
// - A scan (a query without a positive text part, such as `-filter:replies`) that looks words up runs
//   over windows of ids, newest first, each four times the last while pages stay short. Each FTS5
//   lookup inside is confined to the window, so a negation of a common word reads that word's matches
//   in the window, not in the whole world.
import type { Database, Statement } from "bun:sqlite";
import type { Cursor, SearchNode, SearchSortOrder } from "@social/core";
import type { TweetRow } from "../world/rows.ts";
import { compileSearch, type SqlParam } from "./compile.ts";
import { StatementCache } from "./statement-cache.ts";

export type SearchRow = TweetRow & { bucket: number };

/** Above every id (ids are < 2^53). */
const ID_CEILING = 2 ** 53;
/** Distinct search shapes kept prepared. */
const SEARCH_STATEMENTS = 256;

/** The keyset position to continue after; the first page starts above every row. */
function position(sortOrder: SearchSortOrder, after: Cursor | undefined): { bucket: number; id: number } {
  if (after === undefined) return { bucket: -ID_CEILING, id: ID_CEILING };
  const expected = sortOrder === "recency" ? 1 : 2;
  if (after.length !== expected || !after.every((value) => typeof value === "number")) {
    throw new RangeError("search: malformed cursor");
  }
  const [first, second] = after as number[];
  return sortOrder === "recency"
    ? { bucket: 0, id: first as number }
    : { bucket: first as number, id: second as number };
}

export class SearchExecutor {
  readonly #statements: StatementCache;
  readonly #idsFollowTime: Statement;
  readonly #firstIdFrom: Statement;
  readonly #windowStart: Statement;
  readonly #firstWindow: number;

  /** `firstWindow`: the ids a scan reads first, growing fourfold while a page is not full. */
  constructor(db: Database, firstWindow: number) {
    this.#firstWindow = firstWindow;
    this.#statements = new StatementCache(db, SEARCH_STATEMENTS);
    this.#idsFollowTime = db.prepare("SELECT ids_follow_time FROM world_meta WHERE id = 1");
    this.#firstIdFrom = db.prepare("SELECT id FROM tweets WHERE created_ms >= ? ORDER BY created_ms, id LIMIT 1");
    // The id `window` rows below a bound; the offset is the window's size, never a page number.
    this.#windowStart = db.prepare("SELECT id FROM tweets WHERE id < ? ORDER BY id DESC LIMIT 1 OFFSET ?");
  }

  /** Up to `limit` rows of `query` after `after`, in the sort order's order. */
  rows(query: SearchNode, sortOrder: SearchSortOrder, limit: number, after: Cursor | undefined): SearchRow[] {
    const plan = compileSearch(query, sortOrder);
    if (plan === undefined) return [];
    const from = position(sortOrder, after);
    let { low, high } = this.#idRange(plan.since, plan.until);
    // Unranked rows are in id order, so the cursor is one more id bound.
    if (!plan.ranked) high = Math.min(high, from.id);
    const statement = this.#statements.get(plan.sql);
    const run = (windowLow: number, windowHigh: number, rows: number) =>
      statement.all(
        ...([windowLow, windowHigh, rows, from.bucket, from.id, ...plan.values].slice(
          0,
          statement.paramsCount,
        ) as SqlParam[]),
      ) as SearchRow[];
    if (!plan.windowed) return low < high ? run(low, high, limit) : [];

    const rows: SearchRow[] = [];
    for (let window = this.#firstWindow; rows.length < limit && low < high; window *= 4) {
      const start = this.#windowStart.get(high, window - 1) as { id: number } | null;
      const windowLow = start === null ? low : Math.max(low, start.id);
      rows.push(...run(windowLow, high, limit - rows.length));
      high = windowLow;
    }
    return rows;
  }

  /** Ids [low, high) that can hold tweets created in [since, until). */
  #idRange(since: number | undefined, until: number | undefined): { low: number; high: number } {
    const range = { low: 0, high: ID_CEILING };
    if (since === undefined && until === undefined) return range;
    const meta = this.#idsFollowTime.get() as { ids_follow_time: number } | null;
    if (meta?.ids_follow_time !== 1) return range;
    const firstIdFrom = (ms: number) => (this.#firstIdFrom.get(ms) as { id: number } | null)?.id ?? ID_CEILING;
    if (since !== undefined) range.low = firstIdFrom(since);
    if (until !== undefined) range.high = firstIdFrom(until);
    return range;
  }
}
