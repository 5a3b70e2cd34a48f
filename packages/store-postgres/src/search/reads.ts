// The statements that read a search's matches over an id range, newest first (./execute.ts decides
// where and under which settings): as the page's rows, or as candidates scored for relevancy.
import { type IdRange, type SearchPosition, TWEET_COLUMNS } from "@social/store-common";
import { type TweetRow, VISIBLE } from "../world/rows.ts";
import { type Condition, renderCondition, type SearchPlan, Values } from "./compile.ts";
import { type Statement, statement } from "./transaction.ts";

export type SearchRow = TweetRow & { bucket: number };

/** bm25 on SQLite and ts_rank here are scaled by this before rounding to a bucket: three decimals. */
const RELEVANCY_SCALE = 1000;
/** ts_rank's weights for D, C, B, A: text lexemes are weight A, the other fields score nothing. */
const TEXT_ONLY = "'{0,0,0,1}'";

/**
 * One statement over the matches of `condition` in [low, high), newest first, at most `wanted` of them:
 * the rows it returns, how many matches it read and the lowest id among them.
 */
export type Read<R> = (condition: Condition, range: IdRange, wanted: number) => Statement<Reading<R>>;

export interface Reading<R> {
  rows: R[];
  found: number;
  lowest?: bigint;
}

/** The matches as rows of the page, read newest first. */
export const readRows: Read<SearchRow> = (condition, range, wanted) => {
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
export function readRanked(
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
