// How much work one search may do: a product decision every store honours alike (the public
// decisions quote it), each adapter enforcing it with its own machinery.

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
