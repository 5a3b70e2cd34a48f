// How much work one search may do: a product decision every store honours alike (the public
// decisions quote it), each adapter enforcing it with its own machinery, and refusing alike.
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
}

export const DEFAULT_SEARCH_LIMITS: SearchLimits = {
  budgetMs: 100,
  countBudgetMs: 500,
  stepMs: 2,
  firstWindow: 2048,
  relevancyCandidates: 2000,
  maxWaiting: 512,
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
