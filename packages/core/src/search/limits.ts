// How much work one search may do: a product decision every store honours alike (the public
// decisions quote it), each adapter enforcing it with its own machinery, and refusing alike. The budget
// is the database time the read's own statements take; time spent waiting for the database (for a
// connection, for a lock another session holds) is not the query's cost, and has a bound of its own.
import { ApiError } from "../errors.ts";

export interface SearchLimits {
  /** Database time one search may spend, in ms. */
  budgetMs: number;
  /** Database time one count may spend, in ms: it visits every match of its window, a search only a page's. */
  countBudgetMs: number;
  /** Database time one step aims at, in ms: what another request may wait behind a search. */
  stepMs: number;
  /** About how many tweets the first window holds. */
  firstWindow: number;
  /** How many of the newest matches a relevancy search ranks. */
  relevancyCandidates: number;
  /** Steps allowed to wait for the database; past it a search is 503 with Retry-After. */
  maxWaiting: number;
  /**
   * How long, in ms, a read may wait for the database before it runs (a connection, the locks its
   * statements need); past it the read is 503 with Retry-After, and the wait never counts as budget.
   */
  waitMs: number;
}

export const DEFAULT_SEARCH_LIMITS: SearchLimits = {
  budgetMs: 100,
  countBudgetMs: 500,
  stepMs: 2,
  firstWindow: 2048,
  relevancyCandidates: 2000,
  maxWaiting: 512,
  waitMs: 2000,
};

/** What a search budget bounds: a page of matches, or the counts of all matches in a range. */
export type BudgetedRead = "search" | "count";

/** The database time a read may spend, in ms. */
export function budgetOf(limits: SearchLimits, read: BudgetedRead): number {
  return read === "search" ? limits.budgetMs : limits.countBudgetMs;
}

/** The refusal of a read whose budget ran out before it was done: a 400, so nothing is charged. */
export function searchBudgetExceeded(limits: SearchLimits, read: BudgetedRead = "search"): ApiError {
  const spent = `examined more tweets than one request may (${budgetOf(limits, read)} ms of database time)`;
  const message =
    read === "search"
      ? `This search ${spent} without filling its page: narrow it with a positive word, #hashtag, from: or lang:, or a since:/until: range`
      : `This count ${spent}: narrow the query with a positive word, #hashtag, from: or lang:, or count a shorter range with start_time and end_time`;
  return new ApiError("invalid_request", message, { details: [{ parameter: "query", message }] });
}

/** Seconds a client is told to wait before retrying a read the database kept waiting. */
const BUSY_RETRY_AFTER_S = 1;

/**
 * The refusal of a read that waited for the database longer than `waitMs` (another session holds a lock
 * it needs, every connection is taken): the database's doing, not the query's, so a 503 the client may
 * retry, never the 400 that tells it to narrow its query. Nothing is charged.
 */
export function databaseBusy(limits: SearchLimits): ApiError {
  return new ApiError(
    "service_unavailable",
    `The database kept this request waiting longer than ${limits.waitMs} ms: retry in a second`,
    { retryAfter: BUSY_RETRY_AFTER_S },
  );
}
