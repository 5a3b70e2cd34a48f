// Runs a compiled search plan for one page, with bounded work. Every statement of a plan is confined
// to an id range, so a page is found by walking the ids newest first in windows, one statement per
// window, and every window is one step of the FairLane (other requests run between steps):
//
// - The first window holds about `firstWindow` tweets; each next window is sized from how long the
//   last one took, aiming at `stepMs` per step, so a rare term crosses the world in a few large cheap
//   steps and an expensive predicate creeps in small ones.
// - A search may spend `budgetMs` of database time in all: its steps' own, timed around their
//   statements (a turn waited for in the lane is not counted; reads in WAL mode never wait for another
//   connection's lock). One that has not filled its page by then is refused with a 400 that says how
//   to narrow it, and nothing is charged for it.
// - Relevancy ranks the newest `relevancyCandidates` matches of the driving text query (found by
//   counting them window by window), so its one ranking statement scores a bounded set.
// - When the world's tweet ids follow their creation time (the writer records whether they do), a
//   top-level since: / until: becomes an id range, which the FTS5 index and the primary key seek to.
import type { Database, Statement } from "bun:sqlite";
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
import { higherId, type IdRange, lowerId, ReadBudget, searchPosition, withinIds, worldIds } from "@social/store-common";
import type { TweetRow } from "../world/rows.ts";
import { compileCount, compileSearch, type SearchPlan, type SqlParam } from "./compile.ts";
import { FairLane } from "./lane.ts";
import { StatementCache } from "./statement-cache.ts";

export type SearchRow = TweetRow & { bucket: number };
type CountRow = { bucket: number; n: number };

/** Distinct search shapes kept prepared. */
const SEARCH_STATEMENTS = 256;
/** How much a window may grow or shrink from one step to the next. */
const MAX_GROWTH = 8;
/** Every int64 id: no window needs more, and a window stays a whole number as a double. */
const MAX_SPAN = 2 ** 64;

/** The database time a search has spent, and the sizes of its windows. */
class Walk {
  readonly budget: ReadBudget;
  steps = 0;
  #span: number | undefined;

  constructor(
    readonly limits: SearchLimits,
    readonly idsPerTweet: number,
    read: BudgetedRead = "search",
  ) {
    this.budget = new ReadBudget(limits, read);
  }

  /** The id span of the next window. */
  get span(): number {
    return this.#span ?? Math.max(1, Math.round(this.limits.firstWindow * this.idsPerTweet));
  }

  /**
   * Records a step that covered `span` ids in `ms` (its statements alone: the turn it waited for is not
   * counted), and sizes the next one to take about stepMs.
   */
  stepped(span: number, ms: number): void {
    this.budget.spend(ms);
    this.steps += 1;
    const growth = ms <= 0 ? MAX_GROWTH : Math.min(MAX_GROWTH, Math.max(1 / MAX_GROWTH, this.limits.stepMs / ms));
    this.#span = Math.min(MAX_SPAN, Math.max(1, Math.round(span * growth)));
  }

  /** Refuses the next step once the budget is spent; the first always runs, so a budget of 0 allows one. */
  checkBudget(): void {
    if (this.steps > 0) this.budget.left();
  }
}

export class SearchExecutor {
  readonly #limits: SearchLimits;
  readonly #lane: FairLane;
  readonly #statements: StatementCache;
  readonly #idsFollowTime: Statement<{ ids_follow_time: number }, []>;
  readonly #firstIdFrom: Statement<{ id: string }, [number]>;
  readonly #idSpan: Statement<{ low: string | null; high: string | null; tweets: number }, []>;
  readonly #countMatches: Statement<{ n: number }, [bigint, bigint, number, string]>;
  readonly #nthMatch: Statement<{ id: string }, [bigint, bigint, number, string]>;

  constructor(db: Database, limits: SearchLimits) {
    this.#limits = limits;
    this.#lane = new FairLane(limits.maxWaiting, limits.stepMs);
    this.#statements = new StatementCache(db, SEARCH_STATEMENTS);
    this.#idsFollowTime = db.query("SELECT ids_follow_time FROM world_meta WHERE id = 1");
    // Ids are read as text and walked as bigints: see @social/store-common ids.ts.
    this.#firstIdFrom = db.query(
      "SELECT CAST(id AS TEXT) AS id FROM tweets WHERE created_ms >= ? ORDER BY created_ms, id LIMIT 1",
    );
    this.#idSpan = db.query(
      "SELECT CAST((SELECT min(id) FROM tweets) AS TEXT) AS low, CAST((SELECT max(id) FROM tweets) AS TEXT) AS high, " +
        "coalesce((SELECT json_extract(counts, '$.tweet') FROM world_meta WHERE id = 1), 0) AS tweets",
    );
    const driving = "FROM tweets_fts WHERE tweets_fts MATCH ?4 AND rowid >= ?1 AND rowid < ?2";
    this.#countMatches = db.query(`SELECT count(*) AS n FROM (SELECT 1 ${driving} LIMIT ?3)`);
    this.#nthMatch = db.query(`SELECT CAST(rowid AS TEXT) AS id ${driving} ORDER BY rowid DESC LIMIT 1 OFFSET ?3`);
  }

  /** Up to `limit` rows of `query` after `after`, in the sort order's order; `owner` takes turns in the lane. */
  async rows(
    query: SearchNode,
    sortOrder: SearchSortOrder,
    limit: number,
    after: Cursor | undefined,
    owner: string,
  ): Promise<SearchRow[]> {
    const from = searchPosition(sortOrder, after);
    const plan = compileSearch(query, sortOrder);
    if (plan === undefined) return [];
    const world = this.#world();
    const { low, high } = withinIds(this.#idRange(world, plan.since, plan.until), plan);
    const walk = new Walk(this.#limits, world.idsPerTweet);
    const statement = this.#statements.get(plan.sql);
    const run = (windowLow: bigint, windowHigh: bigint, rows: number) =>
      statement.all(
        ...([windowLow, windowHigh, rows, from.bucket, from.id, ...plan.values].slice(
          0,
          statement.paramsCount,
        ) as SqlParam[]),
      ) as SearchRow[];

    if (plan.ranked) {
      const floor = await this.#candidateFloor(plan, low, high, walk, owner);
      return this.#step(owner, walk, () => run(floor, high, limit));
    }
    // Unranked rows are in id order, so the cursor is one more id bound.
    const rows: SearchRow[] = [];
    await this.#walkDown(owner, walk, low, lowerId(high, BigInt(from.id)), (windowLow, windowHigh) => {
      rows.push(...run(windowLow, windowHigh, limit - rows.length));
      return rows.length < limit ? undefined : rows;
    });
    return rows;
  }

  /**
   * How many tweets match `query` in each bucket of `window`, walking the ids of the window's time in
   * steps as a recency page does, with a count's budget: one that cannot finish within it is refused.
   */
  async count(query: SearchNode, window: CountWindow, owner: string): Promise<number[]> {
    const counts = new Array<number>(bucketCount(window)).fill(0);
    const plan = compileCount(countedQuery(query, window));
    if (plan === undefined) return counts;
    const world = this.#world();
    const { low, high } = withinIds(this.#idRange(world, plan.since, plan.until), plan);
    const walk = new Walk(this.#limits, world.idsPerTweet, "count");
    const statement = this.#statements.get(plan.sql);
    const origin = countOrigin(window);
    await this.#walkDown(owner, walk, low, high, (windowLow, windowHigh) => {
      const rows = statement.all(windowLow, windowHigh, origin, window.sizeMs, ...plan.values) as CountRow[];
      for (const { bucket, n } of rows) counts[bucket] = (counts[bucket] ?? 0) + n;
      return undefined;
    });
    return counts;
  }

  /**
   * The lowest id among the newest `relevancyCandidates` driving matches in [low, high), counted window
   * by window: a relevancy page ranks the matches from there up.
   */
  async #candidateFloor(plan: SearchPlan, low: bigint, high: bigint, walk: Walk, owner: string): Promise<bigint> {
    const query = plan.candidateQuery as string;
    let needed = this.#limits.relevancyCandidates;
    const floor = await this.#walkDown(owner, walk, low, high, (windowLow, windowHigh) => {
      const found = this.#countMatches.get(windowLow, windowHigh, needed, query)?.n ?? 0;
      if (found < needed) {
        needed -= found;
        return undefined;
      }
      const nth = this.#nthMatch.get(windowLow, windowHigh, needed - 1, query);
      return nth === null ? windowLow : BigInt(nth.id);
    });
    return floor ?? low;
  }

  /**
   * Walks the ids [low, high) from the top down, a window of the walk's span per step, until `visit`
   * returns a value (which this returns) or the range ends (undefined); past the budget, the 400.
   */
  async #walkDown<T>(
    owner: string,
    walk: Walk,
    low: bigint,
    high: bigint,
    visit: (windowLow: bigint, windowHigh: bigint) => T | undefined,
  ): Promise<T | undefined> {
    let windowHigh = high;
    while (low < windowHigh) {
      walk.checkBudget();
      const windowLow = higherId(low, windowHigh - BigInt(walk.span));
      const top = windowHigh;
      const result = await this.#step(owner, walk, () => visit(windowLow, top), Number(top - windowLow));
      if (result !== undefined) return result;
      windowHigh = windowLow;
    }
    return undefined;
  }

  /** Runs `work` as one step in `owner`'s turn, timed against the walk's budget. */
  async #step<T>(owner: string, walk: Walk, work: () => T, span = 0): Promise<T> {
    // The first step of a search skips the queue when nobody waits: the common search is one step.
    const admitted = walk.steps > 0 || !this.#lane.idle;
    if (admitted) await this.#lane.turn(owner);
    const started = performance.now();
    try {
      const result = work();
      walk.stepped(span, performance.now() - started);
      return result;
    } finally {
      if (admitted) this.#lane.stepped();
    }
  }

  /**
   * The ids [low, high) the world's tweets lie in, and ids per tweet, which size the first window. Read
   * per search (two index seeks), not kept: the operator CLI can rebuild the world under a running server.
   */
  #world(): IdRange & { idsPerTweet: number } {
    const span = this.#idSpan.get() ?? { low: null, high: null, tweets: 0 };
    if (span.low === null || span.high === null) return { low: 0n, high: 0n, idsPerTweet: 1 };
    const { low, high } = worldIds(span.low, span.high);
    const tweets = span.tweets;
    return { low, high, idsPerTweet: tweets < 2 ? 1 : Math.max(1, Number(high - 1n - low) / (tweets - 1)) };
  }

  /** Ids [low, high) of the world that can hold tweets created in [since, until). */
  #idRange(world: IdRange, since: number | undefined, until: number | undefined): IdRange {
    const range = { low: world.low, high: world.high };
    if (since === undefined && until === undefined) return range;
    const meta = this.#idsFollowTime.get();
    if (meta?.ids_follow_time !== 1) return range;
    // No tweet from a time on: nothing from there lies below the world's end.
    const firstIdFrom = (ms: number) => {
      const row = this.#firstIdFrom.get(ms);
      return row === null ? world.high : BigInt(row.id);
    };
    if (since !== undefined) range.low = higherId(range.low, firstIdFrom(since));
    if (until !== undefined) range.high = lowerId(range.high, firstIdFrom(until));
    return range;
  }
}
