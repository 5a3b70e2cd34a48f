// Runs a compiled search (./compile.ts) with bounded work, as SQLite's executor does with its own
// machinery (packages/store-sqlite/src/search/execute.ts); the limits are the same product decision:
//
// - Each search is one transaction on one connection (./transaction.ts), its statements timed out
//   (`statement_timeout`) when the search's budget is spent: a search that cannot fill its page within
//   it is refused with the same 400 as on SQLite, saying how to narrow it, and nothing is charged. Time
//   spent waiting for the connection or for the locks its statements need is not counted; past the wait
//   bound it is a 503 with Retry-After. The transaction also gives every statement of the search one
//   snapshot, so a world rebuilt meanwhile is seen whole or not at all.
// - Plans are made for each search's own values (`plan_cache_mode`): the planner's choice between
//   walking the primary key newest first and gathering matches through the GIN index depends on how
//   common the words are, which a generic plan cannot know (and the statistics it reads are finer
//   for search_vector, see ../world/schema.ts). Relevancy's reads by hours, which have one path left
//   whatever the values, keep one plan per connection.
// - A recency page first walks the newest tweets along the primary key, which finds the page at once
//   when matches are common. The planner's own choice between walking and gathering through the indexes
//   rests on its guess of how common the words are together, and a bad guess walks the whole world, or
//   gathers thousands.
// - When the world's tweet ids follow their creation time (the writer records whether they do) and the
//   query has words the index narrows it by, the walk is short (50 tweets a row wanted), and the rest is
//   read by hours from the newest down (./by-hours.ts): each step's hours are sized from the matches
//   found so far to hold about what is still wanted, so a step reads about as many rows as it needs;
//   the fourth, or one that would cover more than half of the world's hours, reads every hour left. A
//   top-level since: / until: also becomes an id range, which the primary key seeks to.
// - Otherwise the walk covers W tweets, then the rest is gathered: fewer than `limit` matches in W
//   tweets leaves at most about world × limit / W, and a gathered row costs about ten walked ones
//   (GATHER_COST, measured on PostgreSQL: docs/benchmark-log.md), so the worst case of both is least for
//   W = √(world × limit × 10): about 14,500 tweets for a page of 20 in a million.
// - Relevancy ranks the newest `relevancyCandidates` matches of the driving tsquery, found by hours as a
//   recency page is (without the walk), so it scores a bounded set; only the page's rows are read whole.
// - A gate (./gate.ts) keeps searches from taking every connection of the pool.
import {
  type BudgetedRead,
  bucketCount,
  type CountWindow,
  type Cursor,
  countedQuery,
  countOrigin,
  type SearchLimits,
  type SearchNode,
  type SearchSortOrder,
} from "@social/core";
import { higherId, type IdRange, type SearchPosition, searchPosition } from "@social/store-common";
import type { SQL } from "bun";
import { VISIBLE } from "../world/rows.ts";
import { readByHours } from "./by-hours.ts";
import { type Condition, compileSearch, narrowsByIndex, renderCondition, type SearchPlan, Values } from "./compile.ts";
import { LexemeFrequencies } from "./frequencies.ts";
import { SearchGate } from "./gate.ts";
import { readableByHours } from "./hours.ts";
import { GATHER_BY_HOURS, GATHER_THROUGH_INDEX, PLANNERS_CHOICE, RANK_BY_HOURS, WALK } from "./plan-settings.ts";
import { type Read, type Reading, readRanked, readRows, type SearchRow } from "./reads.ts";
import { type SearchSteps, searchTransaction, statement } from "./transaction.ts";
import { type WorldRange, worldRange } from "./world-range.ts";

export interface SearchExecutorOptions {
  /** How many of the pool's connections searches may hold at once. */
  concurrentSearches: number;
  /** How many of the newest tweets a recency page walks before it gathers, when fixed. */
  newestWalk?: number;
}

/** What a gathered row costs in walked ones. */
const GATHER_COST = 10;
/** Tweets a recency page walks for each row it wants, when it can go on by hours. */
const SHORT_WALK = 50;

export class SearchExecutor {
  readonly #sql: SQL;
  readonly #limits: SearchLimits;
  readonly #gate: SearchGate;
  readonly #newestWalk: number | undefined;
  readonly #frequencies: LexemeFrequencies;

  constructor(sql: SQL, limits: SearchLimits, options: SearchExecutorOptions) {
    this.#sql = sql;
    this.#frequencies = new LexemeFrequencies(sql);
    this.#limits = limits;
    this.#gate = new SearchGate(options.concurrentSearches, limits.maxWaiting);
    this.#newestWalk = options.newestWalk;
  }

  /** Up to `limit` rows of `query` after `after`, in the sort order's order; `owner` takes turns at the gate. */
  async rows(
    query: SearchNode,
    sortOrder: SearchSortOrder,
    limit: number,
    after: Cursor | undefined,
    owner: string,
  ): Promise<SearchRow[]> {
    const from = searchPosition(sortOrder, after);
    const plan = compileSearch(query, await this.#frequencies.current());
    if (plan === undefined) return [];
    const ranking = sortOrder === "relevancy" ? plan.ranking : undefined;
    // A relevancy page ranks the same candidates whatever page it is; a recency page starts below the last.
    const top = ranking === undefined ? BigInt(from.id) : undefined;
    return this.#search(owner, "search", plan, top, async (steps, range) => {
      if (range.low >= range.high) return [];
      if (ranking !== undefined) return this.#ranked(steps, ranking, range, limit, from);
      return this.#newest(steps, readRows, plan.condition, range, limit);
    });
  }

  /**
   * Runs `work` at the gate, in a transaction of its own whose first statement reads the world's range
   * for `plan` (below `top`, when given), within the budget of `read` (./transaction.ts).
   */
  #search<T>(
    owner: string,
    read: BudgetedRead,
    plan: SearchPlan,
    top: bigint | undefined,
    work: (steps: SearchSteps, range: WorldRange) => Promise<T>,
  ): Promise<T> {
    return this.#gate.run(owner, () =>
      searchTransaction(this.#sql, this.#limits, read, (tx) => worldRange(tx, plan, top), work),
    );
  }

  /**
   * How many tweets match `query` in each bucket of `window`: one statement over the ids of the window's
   * time, at the gate, within a count's budget (past it, the same 400 as a search's, with a count's advice).
   */
  async count(query: SearchNode, window: CountWindow, owner: string): Promise<number[]> {
    const counts = new Array<number>(bucketCount(window)).fill(0);
    const plan = compileSearch(countedQuery(query, window), await this.#frequencies.current());
    if (plan === undefined) return counts;
    const rows = await this.#search(owner, "count", plan, undefined, async (steps, { low, high }) => {
      if (low >= high) return [];
      const values = new Values(5);
      const where = renderCondition(plan.condition, values);
      return steps.run(
        PLANNERS_CHOICE,
        statement(
          `SELECT ((t.created_ms - $3::bigint) / $4::bigint)::int AS bucket, count(*)::int AS n FROM tweets t
           WHERE t.id >= $1::bigint AND t.id < $2::bigint AND ${VISIBLE} AND (${where}) GROUP BY 1`,
          [low, high, countOrigin(window), window.sizeMs, ...values.list],
          (rows: { bucket: number; n: number }[]) => rows,
        ),
      );
    });
    for (const { bucket, n } of rows) counts[bucket] = (counts[bucket] ?? 0) + n;
    return counts;
  }

  /** Up to `limit` matches of `condition` in `range`, newest first: walked, then by hours or gathered. */
  async #newest(
    steps: SearchSteps,
    read: Read<SearchRow>,
    condition: Condition,
    range: WorldRange,
    limit: number,
  ): Promise<SearchRow[]> {
    const { low, high } = range;
    const hours = readableByHours(condition) ? range.hours : undefined;
    const fullWalk = Math.sqrt(range.tweets * limit * GATHER_COST);
    const walk = this.#newestWalk ?? (hours === undefined ? fullWalk : limit * SHORT_WALK);
    const walkLow = higherId(low, high - BigInt(Math.round(walk * range.idsPerTweet)));
    const { rows } = await steps.run(WALK, read(condition, { low: walkLow, high }, limit));
    if (rows.length === limit || walkLow <= low) return rows;
    const below = { ...range, high: walkLow };
    const rest =
      hours === undefined
        ? await this.#gather(steps, read, condition, below, limit - rows.length)
        : await readByHours(steps, read, GATHER_BY_HOURS, condition, below, hours, limit, {
            found: rows.length,
            tweets: walk,
          });
    return rows.concat(rest.rows);
  }

  /** Up to `wanted` matches of `condition` in `range`, newest first, gathered through the indexes. */
  #gather<R>(
    steps: SearchSteps,
    read: Read<R>,
    condition: Condition,
    range: IdRange,
    wanted: number,
  ): Promise<Reading<R>> {
    return steps.run(
      narrowsByIndex(condition) ? GATHER_THROUGH_INDEX : PLANNERS_CHOICE,
      read(condition, range, wanted),
    );
  }

  /**
   * The page after `from` among the driver's newest `relevancyCandidates` matches in the range that also
   * meet the rest, best bucket first, then newest. Each statement scores the candidates it reads and
   * returns only those that can be on the page.
   */
  async #ranked(
    steps: SearchSteps,
    ranking: NonNullable<SearchPlan["ranking"]>,
    range: WorldRange,
    limit: number,
    from: SearchPosition,
  ): Promise<SearchRow[]> {
    const wanted = this.#limits.relevancyCandidates;
    let rows: SearchRow[];
    if (range.hours === undefined || !readableByHours(ranking.driver)) {
      const read = readRanked(ranking, from, limit, "seek");
      ({ rows } = await steps.run(PLANNERS_CHOICE, read(ranking.driver, range, wanted)));
    } else {
      const read = readRanked(ranking, from, limit, "test");
      const progress = { found: 0, tweets: 0 };
      ({ rows } = await readByHours(steps, read, RANK_BY_HOURS, ranking.driver, range, range.hours, wanted, progress));
    }
    // Each statement's rows come best first; across statements, newer first within a bucket, as the
    // statements read from the newest down (the sort is stable).
    return rows.sort((a, b) => a.bucket - b.bucket).slice(0, limit);
  }
}
