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
//   read by hours from the newest down (./hours.ts): each step's hours are sized from the matches found
//   so far to hold about what is still wanted, so a step reads about as many rows as it needs; the
//   fourth, or one that would cover more than half of the world's hours, reads every hour left. A
//   top-level since: / until: also becomes an id range, which the primary key seeks to.
// - Otherwise the walk covers W tweets, then the rest is gathered: fewer than `limit` matches in W
//   tweets leaves at most about world × limit / W, and a gathered row costs about ten walked ones
//   (measured here), so the worst case of both is least for W = √(world × limit × 10): about 14,500
//   tweets for a page of 20 in a million.
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
  ID_CEILING,
  type SearchLimits,
  type SearchNode,
  type SearchSortOrder,
} from "@social/core";
import {
  higherId,
  type IdRange,
  lowerId,
  type SearchPosition,
  searchPosition,
  TWEET_COLUMNS,
  withinIds,
  worldIds,
} from "@social/store-common";
import type { SQL } from "bun";
import { type TweetRow, VISIBLE } from "../world/rows.ts";
import {
  type Condition,
  compileSearch,
  narrowsByIndex,
  renderCondition,
  type SearchPlan,
  Values,
  withTimeFiltered,
} from "./compile.ts";
import { LexemeFrequencies } from "./frequencies.ts";
import { SearchGate } from "./gate.ts";
import { hourOf, readableByHours, withinHours } from "./hours.ts";
import { type SearchSteps, type Statement, searchTransaction, statement } from "./transaction.ts";

export type SearchRow = TweetRow & { bucket: number };

/** bm25 on SQLite and ts_rank here are scaled by this before rounding to a bucket: three decimals. */
const RELEVANCY_SCALE = 1000;
/** ts_rank's weights for D, C, B, A: text lexemes are weight A, the other fields score nothing. */
const TEXT_ONLY = "'{0,0,0,1}'";

// The steps of a page, each made the only plan the planner may pick: its guesses of how common words are
// together are what the steps are there to not depend on (a phrase of common words is guessed at one
// tweet, and gathering its thousands through the index then costs more than the walk). Each step also
// gets what is left of the search's budget ($1, in ms) as its statement timeout, a plan made for its own
// values (above; RANK_BY_HOURS keeps one), and no parallel workers, which take milliseconds to start and
// the connections of other requests' statements: one search is one backend. A page read at random is priced as one read in order
// (random_page_cost 1.1, the usual setting for a database held in memory, as the README asks of its
// shared_buffers): at the default 4 the planner builds a bitmap of a count's B-tree, a few hundred
// thousand entries for `min_retweets:1`, to save reading a few hundred rows.
const set = (settings: Record<string, "on" | "off">, plans: "custom" | "generic" = "custom") =>
  `SELECT set_config('statement_timeout', $1, true), set_config('plan_cache_mode', 'force_${plans}_plan', true),
   set_config('max_parallel_workers_per_gather', '0', true), set_config('random_page_cost', '1.1', true),
   ${Object.entries(settings)
     .map(([name, value]) => `set_config('${name}', '${value}', true)`)
     .join(", ")}`;
/** Along the primary key, newest first. */
const WALK = set({ enable_bitmapscan: "off", enable_seqscan: "off" });
/** Through the indexes that narrow the condition down (GIN, the counts' and time's B-trees). */
const GATHER_THROUGH_INDEX = set({ enable_bitmapscan: "on", enable_seqscan: "on", enable_indexscan: "off" });
/** Through the GIN index, which the hours narrow down (and the B-trees, where they narrow more). */
const BY_HOURS = { enable_bitmapscan: "on", enable_seqscan: "off", enable_indexscan: "off" } as const;
const GATHER_BY_HOURS = set(BY_HOURS);
/**
 * Ranking candidates by hours: the GIN index is the one path left (the ids are tested on the rows, see
 * readRanked), so the plan is the same whatever the values, and each connection keeps one: planning the
 * statement anew took half a millisecond a step, a sixth of a word's relevancy page.
 */
const RANK_BY_HOURS = set(BY_HOURS, "generic");
/** The planner's own choice, for a condition no index narrows down. */
const PLANNERS_CHOICE = set({ enable_bitmapscan: "on", enable_seqscan: "on" });

/**
 * The world's bounds, read per search (index seeks), not kept: the operator CLI can rebuild the world
 * under a running server. `below` and `above`: the ids under which the newest tweet opens the search's
 * hours, and over which the oldest closes them.
 */
function readRange(tx: SQL, since: number | null, until: number | null, below: bigint, above: bigint) {
  return tx<RangeRow[]>`SELECT (SELECT min(id) FROM tweets) AS low, (SELECT max(id) FROM tweets) AS high,
    coalesce((SELECT ids_follow_time FROM world_meta WHERE id = 1), false) AS ids_follow_time,
    (SELECT counts FROM world_meta WHERE id = 1) AS counts,
    (SELECT id FROM tweets WHERE created_ms >= ${since}::bigint ORDER BY created_ms, id LIMIT 1) AS since_id,
    (SELECT id FROM tweets WHERE created_ms >= ${until}::bigint ORDER BY created_ms, id LIMIT 1) AS until_id,
    (SELECT created_ms FROM tweets ORDER BY id LIMIT 1) AS first_ms,
    (SELECT created_ms FROM tweets ORDER BY id DESC LIMIT 1) AS last_ms,
    (SELECT created_ms FROM tweets WHERE id < ${below}::bigint ORDER BY id DESC LIMIT 1) AS top_ms,
    (SELECT created_ms FROM tweets WHERE id > ${above}::bigint ORDER BY id LIMIT 1) AS bottom_ms`;
}

interface RangeRow {
  low: string | null;
  high: string | null;
  ids_follow_time: boolean;
  counts: string | null;
  since_id: string | null;
  until_id: string | null;
  first_ms: string | null;
  last_ms: string | null;
  top_ms: string | null;
  bottom_ms: string | null;
}

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
/** Steps by hours; the last reads every hour left. */
const HOUR_STEPS = 4;
/** How much more than the matches' rate so far says is needed a step covers, so that one usually does. */
const STEP_MARGIN = 1.5;
/** The share of tweets a step without a rate to go by takes to match. */
const FIRST_GUESS = 0.25;

interface WorldRange extends IdRange {
  idsPerTweet: number;
  tweets: number;
  /** When ids follow time: the hours of the range's newest and oldest tweets, and tweets per hour. */
  hours?: HourSpan;
}

interface HourSpan {
  newest: number;
  oldest: number;
  tweetsPerHour: number;
  /** The hours of the world's first and last tweets, which the index lists when asked for no hours. */
  worldFirst: number;
  worldLast: number;
}

/**
 * One statement over the matches of `condition` in [low, high), newest first, at most `wanted` of them:
 * the rows it returns, how many matches it read and the lowest id among them.
 */
type Read<R> = (condition: Condition, range: IdRange, wanted: number) => Statement<Reading<R>>;

interface Reading<R> {
  rows: R[];
  found: number;
  lowest?: bigint;
}

/** How far a search has read: the matches found among the newest `tweets` of its range. */
interface Progress {
  found: number;
  tweets: number;
}

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
      searchTransaction(this.#sql, this.#limits, read, (tx) => this.#worldRange(tx, plan, top), work),
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
        : await this.#byHours(steps, read, GATHER_BY_HOURS, condition, below, hours, limit, {
            found: rows.length,
            tweets: walk,
          });
    return rows.concat(rest.rows);
  }

  /**
   * Up to `wanted` matches of `condition` in `range`, newest first, read hour by hour from `hours.newest`
   * down (see the top of this file), `progress` being what was found before.
   */
  async #byHours<R>(
    steps: SearchSteps,
    read: Read<R>,
    settings: string,
    condition: Condition,
    range: IdRange,
    hours: HourSpan,
    wanted: number,
    progress: Progress,
  ): Promise<Reading<R>> {
    const rows: R[] = [];
    let { found, tweets } = progress;
    let { high } = range;
    let newest = hours.newest;
    for (let step = 1; found < wanted && newest >= hours.oldest; step++) {
      const rate = tweets === 0 ? FIRST_GUESS : Math.max(found, 0.5) / tweets;
      const stepHours = Math.ceil(((wanted - found) / rate / hours.tweetsPerHour) * STEP_MARGIN);
      const planned = step === HOUR_STEPS ? hours.oldest : Math.max(hours.oldest, newest - stepHours + 1);
      // A step through most of the world's hours reads every hour left and names none: the index then
      // lists the matches of the hours outside too (left out by their ids, or read sooner than needed),
      // which mostly costs less than going through the spans' postings (`autumn`'s 1,400 matches over
      // 163 hours: 2.6 ms without, 4.6 ms with five spans; a word's 5,300 of which 3,200 lie in 103 of
      // 168 hours: 9.6–10.4 ms without, 5.9–8.7 with).
      const everyHour = (newest - planned + 1) * 2 > hours.worldLast - hours.worldFirst + 1;
      const oldest = everyHour ? hours.oldest : planned;
      const window = everyHour ? withTimeFiltered(condition) : withinHours(condition, oldest, newest);
      const reading = await steps.run(settings, read(window, { low: range.low, high }, wanted - found));
      rows.push(...reading.rows);
      found += reading.found;
      // Every match of the hours read is found (or the search is done), so the rest lie below the lowest.
      high = reading.lowest ?? high;
      tweets += (newest - oldest + 1) * hours.tweetsPerHour;
      newest = oldest - 1;
    }
    return { rows, found };
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
      ({ rows } = await this.#byHours(
        steps,
        read,
        RANK_BY_HOURS,
        ranking.driver,
        range,
        range.hours,
        wanted,
        progress,
      ));
    }
    // Each statement's rows come best first; across statements, newer first within a bucket, as the
    // statements read from the newest down (the sort is stable).
    return rows.sort((a, b) => a.bucket - b.bucket).slice(0, limit);
  }

  /**
   * Ids [low, high) of the world that can hold the plan's matches (below `top` too, when given); the
   * world's tweets, ids per tweet and, when ids follow time, its hours: a search's first statement
   * (./transaction.ts).
   */
  async #worldRange(tx: SQL, plan: SearchPlan, top: bigint | undefined): Promise<WorldRange> {
    const below = lowerId(top ?? ID_CEILING, plan.untilId ?? ID_CEILING);
    const [row] = await readRange(tx, plan.since ?? null, plan.until ?? null, below, plan.sinceId ?? -1n);
    if (row === undefined || row.low === null || row.high === null) {
      return { low: 0n, high: 0n, idsPerTweet: 1, tweets: 0 };
    }
    const tweets = row.counts === null ? 0 : ((JSON.parse(row.counts) as { tweet?: number }).tweet ?? 0);
    const { low, high } = worldIds(row.low, row.high);
    const ids = withinIds({ low, high }, plan);
    const range: WorldRange = {
      ...ids,
      high: top === undefined ? ids.high : lowerId(ids.high, top),
      idsPerTweet: tweets < 2 ? 1 : Math.max(1, Number(high - 1n - low) / (tweets - 1)),
      tweets,
    };
    if (!row.ids_follow_time) return range;
    // No tweet from since: on leaves nothing to walk.
    if (plan.since !== undefined) range.low = higherId(range.low, row.since_id === null ? high : BigInt(row.since_id));
    if (plan.until !== undefined && row.until_id !== null) range.high = lowerId(range.high, BigInt(row.until_id));
    if (row.first_ms !== null && row.last_ms !== null && row.top_ms !== null) {
      const [first, last] = [hourOf(Number(row.first_ms)), hourOf(Number(row.last_ms))];
      range.hours = {
        newest: hourOf(Math.min(Number(row.top_ms), (plan.until ?? Number.POSITIVE_INFINITY) - 1)),
        // A since_id: ends the hours too: below it, a step would read every match of the world's
        // oldest hours to keep none.
        oldest: hourOf(Math.max(Number(row.bottom_ms ?? row.first_ms), plan.since ?? Number.NEGATIVE_INFINITY)),
        tweetsPerHour: Math.max(1, tweets) / (last - first + 1),
        worldFirst: first,
        worldLast: last,
      };
    }
    return range;
  }
}

/** The matches as rows of the page, read newest first. */
const readRows: Read<SearchRow> = (condition, range, wanted) => {
  const values = new Values(4);
  const where = renderCondition(condition, values);
  return statement(
    `SELECT ${TWEET_COLUMNS}, 0 AS bucket FROM tweets t
     WHERE t.id >= $1::bigint AND t.id < $2::bigint AND ${VISIBLE} AND (${where})
     ORDER BY t.id DESC LIMIT $3`,
    [range.low, range.high, wanted, ...values.list],
    (rows: SearchRow[]) => {
      const last = rows.at(-1);
      return { rows: [...rows], found: rows.length, ...(last ? { lowest: BigInt(last.id) } : {}) };
    },
  );
};

/**
 * The matches of the driver read as candidates: each scored, and whether the rest of the query holds;
 * the rows returned are the best `limit` after `from` among them, with how many candidates were read.
 * `ids`: whether the range's bounds may be sought in the primary key, or are only tested on the rows
 * found (`+ 0` is not the column), as when the hours bound the candidates already.
 */
function readRanked(
  ranking: NonNullable<SearchPlan["ranking"]>,
  from: SearchPosition,
  limit: number,
  ids: "seek" | "test",
): Read<SearchRow> {
  const id = ids === "seek" ? "t.id" : "(t.id + 0)";
  return (condition, range, wanted) => {
    const values = new Values(7);
    const scored = values.slot(ranking.scored, "tsquery");
    const keep = ranking.rest === undefined ? "TRUE" : renderCondition(ranking.rest, values);
    const where = renderCondition(condition, values);
    // The candidates are read once (MATERIALIZED): counted, and the page's few joined to their rows.
    return statement(
      `WITH c AS MATERIALIZED (
         SELECT t.id, round(ts_rank(${TEXT_ONLY}, t.search_vector, ${scored}) * -${RELEVANCY_SCALE})::integer AS bucket,
           (${keep}) AS keep
         FROM tweets t WHERE ${id} >= $1::bigint AND ${id} < $2::bigint AND ${VISIBLE} AND (${where})
         ORDER BY t.id DESC LIMIT $3
       )
       SELECT n.candidates, n.lowest, p.* FROM (SELECT count(*)::int AS candidates, min(id)::text AS lowest FROM c) n
       LEFT JOIN LATERAL (
         SELECT ${TWEET_COLUMNS}, page.bucket FROM (
           SELECT c.id, c.bucket FROM c
           WHERE c.keep AND (c.bucket > $5::bigint OR (c.bucket = $5::bigint AND c.id < $6::bigint))
           ORDER BY c.bucket, c.id DESC LIMIT $4
         ) page JOIN tweets t ON t.id = page.id
         ORDER BY page.bucket, page.id DESC
       ) p ON true`,
      [range.low, range.high, wanted, limit, from.bucket, from.id, ...values.list],
      (rows: (SearchRow & { candidates: number; lowest: string | null })[]) => {
        // With no candidate on the page, the one row holds the count alone.
        const lowest = rows[0]?.lowest;
        return {
          rows: rows.filter((row) => row.id !== null),
          found: rows[0]?.candidates ?? 0,
          ...(lowest ? { lowest: BigInt(lowest) } : {}),
        };
      },
    );
  };
}
