// How much work one search may do: a product decision every store honours alike (the public
// decisions quote it), each adapter enforcing it with its own machinery, and refusing alike.
import { ApiError } from "../errors.ts";

export interface SearchLimits {
  /** Database time one search may spend, in ms. */
  budgetMs: number;
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
  stepMs: 2,
  firstWindow: 2048,
  relevancyCandidates: 2000,
  maxWaiting: 512,
};

/** The refusal of a search whose budget ran out before its page was full: a 400, so nothing is charged. */
export function searchBudgetExceeded(limits: SearchLimits): ApiError {
  const message = `This search examined more tweets than one request may (${limits.budgetMs} ms of database time) without filling its page: narrow it with a positive word, #hashtag, from: or lang:, or a since:/until: range`;
  return new ApiError("invalid_request", message, { details: [{ parameter: "query", message }] });
}
