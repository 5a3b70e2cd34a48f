// Runs a compiled search (./compile.ts) with bounded work, as SQLite's executor does with its own
// machinery (packages/store-sqlite/src/search/execute.ts); the limits are the same product decision:
//
// - Each search is one transaction on one connection, its statements timed out (`statement_timeout`)
//   when the search's budget is spent: a search that cannot fill its page within it is refused with
//   the same 400 as on SQLite, saying how to narrow it, and nothing is charged. The transaction also gives every
//   statement of the search one snapshot, so a world rebuilt meanwhile is seen whole or not at all.
// - Plans are made for each search's own values (`plan_cache_mode`): the planner's choice between
//   walking the primary key newest first and gathering matches through the GIN index depends on how
//   common the words are, which a generic plan cannot know (and the statistics it reads are finer
//   for search_vector, see ../world/schema.ts).
// - A recency page first walks the newest W tweets along the primary key, which finds the page at once
//   when matches are common; when they are not, the rest of the world is gathered through the indexes,
//   whose cost follows the number of matches, and those are few, or the walk would have found them:
//   fewer than `limit` in W tweets leaves at most about world × limit / W. A gathered row costs about
//   ten walked ones (measured here), so the worst case of both together is least for
//   W = √(world × limit × 10): about 14,500 tweets for a page of 20 in a million. The planner's own
//   choice between the two rests on its guess of how common the words are together, and a bad guess
//   walks the whole world, or gathers thousands.
// - When the world's tweet ids follow their creation time (the writer records whether they do), a
//   top-level since: / until: becomes an id range, which the primary key seeks to.
// - Relevancy ranks the newest `relevancyCandidates` matches of the driving tsquery, so its one ranking
//   statement scores a bounded set.
// - A gate (./gate.ts) keeps searches from taking every connection of the pool.
import {
  type BudgetedRead,
  bucketCount,
  budgetOf,
  type CountWindow,
  type Cursor,
  countedQuery,
  countOrigin,
  type SearchLimits,
  type SearchNode,
  type SearchSortOrder,
  searchBudgetExceeded,
} from "@social/core";
import {
  higherId,
  type IdRange,
  lowerId,
  type SearchPosition,
  searchPosition,
  TWEET_COLUMNS,
  withinIds,
} from "@social/store-kit";
import { SQL, type TransactionSQL } from "bun";
import { type TweetRow, VISIBLE } from "../world/rows.ts";
import { compileSearch, narrowsByIndex, renderCondition, type SearchPlan, Values } from "./compile.ts";
import { SearchGate } from "./gate.ts";

export type SearchRow = TweetRow & { bucket: number };

/** bm25 on SQLite and ts_rank here are scaled by this before rounding to a bucket: three decimals. */
const RELEVANCY_SCALE = 1000;
/** ts_rank's weights for D, C, B, A: text lexemes are weight A, the other fields score nothing. */
const TEXT_ONLY = "'{0,0,0,1}'";
const STATEMENT_TIMEOUT = "57014";

function timedOut(error: unknown): boolean {
  return error instanceof SQL.PostgresError && error.errno === STATEMENT_TIMEOUT;
}

// The two steps of a recency page, each made the only plan the planner may pick: its guesses of how
// common words are together are what the steps are there to not depend on (a phrase of common words is
// guessed at one tweet, and gathering its thousands through the index then costs more than the walk).
// Each step also gets what is left of the search's budget ($1, in ms) as its statement timeout.
const set = (settings: Record<string, "on" | "off">) =>
  `SELECT set_config('statement_timeout', $1, true), ${Object.entries(settings)
    .map(([name, value]) => `set_config('${name}', '${value}', true)`)
    .join(", ")}`;
/** Along the primary key, newest first. */
const WALK = set({ enable_bitmapscan: "off", enable_seqscan: "off" });
/** Through the indexes that narrow the condition down (GIN, the counts' and time's B-trees). */
const GATHER_THROUGH_INDEX = set({ enable_bitmapscan: "on", enable_seqscan: "on", enable_indexscan: "off" });
/** The planner's own choice, for a condition no index narrows down. */
const PLANNERS_CHOICE = set({ enable_bitmapscan: "on", enable_seqscan: "on" });

// Parallel workers take milliseconds to start and the connections of other requests' statements: one
// search is one backend.
const SETTINGS = `SELECT set_config('statement_timeout', $1, true),
  set_config('plan_cache_mode', 'force_custom_plan', true),
  set_config('max_parallel_workers_per_gather', '0', true)`;

// Both bounds are read per search (index seeks), not kept: the operator CLI can rebuild the world under
// a running server.
const RANGE = `SELECT (SELECT min(id) FROM tweets) AS low, (SELECT max(id) FROM tweets) AS high,
  coalesce((SELECT ids_follow_time FROM world_meta WHERE id = 1), false) AS ids_follow_time,
  (SELECT counts FROM world_meta WHERE id = 1) AS counts,
  (SELECT id FROM tweets WHERE created_ms >= $1::bigint ORDER BY created_ms, id LIMIT 1) AS since_id,
  (SELECT id FROM tweets WHERE created_ms >= $2::bigint ORDER BY created_ms, id LIMIT 1) AS until_id`;

interface RangeRow {
  low: string | null;
  high: string | null;
  ids_follow_time: boolean;
  counts: string | null;
  since_id: string | null;
  until_id: string | null;
}

export interface SearchExecutorOptions {
  /** How many of the pool's connections searches may hold at once. */
  concurrentSearches: number;
  /** How many of the newest tweets a recency page walks before it gathers (W above), when fixed. */
  newestWalk?: number;
}

/** What a gathered row costs in walked ones. */
const GATHER_COST = 10;

interface WorldRange extends IdRange {
  idsPerTweet: number;
  tweets: number;
}

export class SearchExecutor {
  readonly #sql: SQL;
  readonly #limits: SearchLimits;
  readonly #gate: SearchGate;
  readonly #newestWalk: number | undefined;

  constructor(sql: SQL, limits: SearchLimits, options: SearchExecutorOptions) {
    this.#sql = sql;
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
    const plan = compileSearch(query);
    if (plan === undefined) return [];
    return this.#withinBudget(owner, async (tx, left) => {
      const { low, high, idsPerTweet, tweets } = await this.#idRange(tx, plan);
      if (low >= high) return [];
      if (sortOrder === "relevancy" && plan.ranking !== undefined) {
        return this.#ranked(tx, plan.ranking, low, high, limit, from);
      }
      const top = lowerId(high, BigInt(from.id));
      const walk = this.#newestWalk ?? Math.sqrt(tweets * limit * GATHER_COST);
      const walkLow = higherId(low, top - BigInt(Math.round(walk * idsPerTweet)));
      await tx.unsafe(WALK, left());
      const rows = await this.#newest(tx, plan, walkLow, top, limit);
      if (rows.length === limit || walkLow <= low) return rows;
      await tx.unsafe(narrowsByIndex(plan.condition) ? GATHER_THROUGH_INDEX : PLANNERS_CHOICE, left());
      return rows.concat(await this.#newest(tx, plan, low, walkLow, limit - rows.length));
    });
  }

  /**
   * Runs `work` in one transaction at the gate, within the search budget: `left()` gives the ms that
   * remain as a statement_timeout parameter (past the budget, the same 400 as a timed-out statement).
   */
  async #withinBudget<T>(
    owner: string,
    work: (tx: TransactionSQL, left: () => [string]) => Promise<T>,
    read: BudgetedRead = "search",
  ): Promise<T> {
    try {
      return await this.#gate.run(owner, () =>
        this.#sql.begin(async (tx) => {
          const started = performance.now();
          const left = (): [string] => {
            const ms = Math.floor(budgetOf(this.#limits, read) - (performance.now() - started));
            if (ms <= 0) throw searchBudgetExceeded(this.#limits, read);
            return [String(ms)];
          };
          await tx.unsafe(SETTINGS, left());
          return work(tx, left);
        }),
      );
    } catch (error) {
      throw timedOut(error) ? searchBudgetExceeded(this.#limits, read) : error;
    }
  }

  /**
   * How many tweets match `query` in each bucket of `window`: one statement over the ids of the window's
   * time, at the gate, within a count's budget (past it, the same 400 as a search's, with a count's advice).
   */
  async count(query: SearchNode, window: CountWindow, owner: string): Promise<number[]> {
    const counts = new Array<number>(bucketCount(window)).fill(0);
    const plan = compileSearch(countedQuery(query, window));
    if (plan === undefined) return counts;
    const rows = await this.#withinBudget(
      owner,
      async (tx, left) => {
        const { low, high } = await this.#idRange(tx, plan);
        if (low >= high) return [];
        await tx.unsafe(PLANNERS_CHOICE, left());
        const values = new Values(5);
        const where = renderCondition(plan.condition, values);
        return tx.unsafe<{ bucket: number; n: number }[]>(
          `SELECT ((t.created_ms - $3::bigint) / $4::bigint)::int AS bucket, count(*)::int AS n FROM tweets t
           WHERE t.id >= $1::bigint AND t.id < $2::bigint AND ${VISIBLE} AND (${where}) GROUP BY 1`,
          [low, high, countOrigin(window), window.sizeMs, ...values.list],
        );
      },
      "count",
    );
    for (const { bucket, n } of rows) counts[bucket] = (counts[bucket] ?? 0) + n;
    return counts;
  }

  /** The matches in [low, high), newest first, every row in bucket 0. */
  async #newest(tx: TransactionSQL, plan: SearchPlan, low: bigint, high: bigint, limit: number) {
    const values = new Values(4);
    const where = renderCondition(plan.condition, values);
    const rows = await tx.unsafe<SearchRow[]>(
      `SELECT ${TWEET_COLUMNS}, 0 AS bucket FROM tweets t
       WHERE t.id >= $1::bigint AND t.id < $2::bigint AND ${VISIBLE} AND (${where})
       ORDER BY t.id DESC LIMIT $3`,
      [low, high, limit, ...values.list],
    );
    return [...rows];
  }

  /**
   * The page after `from` among the driver's newest `relevancyCandidates` matches in [low, high) that
   * also meet the rest, best bucket first, then newest. One statement: the candidates' rows are read
   * once, to score them and to test the rest.
   */
  async #ranked(
    tx: TransactionSQL,
    ranking: NonNullable<SearchPlan["ranking"]>,
    low: bigint,
    high: bigint,
    limit: number,
    from: SearchPosition,
  ) {
    const values = new Values(7);
    const driver = values.slot(ranking.driver, "tsquery");
    const rest = ranking.rest === undefined ? "" : ` AND (${renderCondition(ranking.rest, values)})`;
    const rows = await tx.unsafe<SearchRow[]>(
      `SELECT ${TWEET_COLUMNS}, r.bucket FROM (
         SELECT * FROM tweets t WHERE t.id >= $1::bigint AND t.id < $2::bigint AND ${VISIBLE}
           AND t.search_vector @@ ${driver} ORDER BY t.id DESC LIMIT $6
       ) t
       CROSS JOIN LATERAL (SELECT round(ts_rank(${TEXT_ONLY}, t.search_vector, ${driver}) * -${RELEVANCY_SCALE})::integer AS bucket) r
       WHERE (r.bucket > $4::bigint OR (r.bucket = $4::bigint AND t.id < $5::bigint))${rest}
       ORDER BY r.bucket, t.id DESC LIMIT $3`,
      [low, high, limit, from.bucket, from.id, this.#limits.relevancyCandidates, ...values.list],
    );
    return [...rows];
  }

  /**
   * Ids [low, high) of the world that can hold the plan's matches; the world's tweets and ids per tweet,
   * which size the walk.
   */
  async #idRange(tx: TransactionSQL, plan: SearchPlan): Promise<WorldRange> {
    const [row] = await tx.unsafe<RangeRow[]>(RANGE, [plan.since ?? null, plan.until ?? null]);
    if (row === undefined || row.low === null || row.high === null) {
      return { low: 0n, high: 0n, idsPerTweet: 1, tweets: 0 };
    }
    const tweets = row.counts === null ? 0 : ((JSON.parse(row.counts) as { tweet?: number }).tweet ?? 0);
    const [low, high] = [BigInt(row.low), BigInt(row.high) + 1n];
    const range = {
      ...withinIds({ low, high }, plan),
      idsPerTweet: tweets < 2 ? 1 : Math.max(1, Number(high - 1n - low) / (tweets - 1)),
      tweets,
    };
    if (!row.ids_follow_time) return range;
    // No tweet from since: on leaves nothing to walk.
    if (plan.since !== undefined) range.low = higherId(range.low, row.since_id === null ? high : BigInt(row.since_id));
    if (plan.until !== undefined && row.until_id !== null) range.high = lowerId(range.high, BigInt(row.until_id));
    return range;
  }
}
