export { FILTER_NAMES, type FilterName, type SearchDocument, type SearchNode } from "./ast.ts";
export {
  bucketCount,
  type CountWindow,
  countedQuery,
  countOrigin,
  countWindow,
  GRANULARITIES,
  type Granularity,
} from "./counts.ts";
export { SearchSyntaxError, type SearchSyntaxProblem } from "./errors.ts";
export {
  type BudgetedRead,
  budgetOf,
  DEFAULT_SEARCH_LIMITS,
  databaseBusy,
  type SearchLimits,
  searchBudgetExceeded,
} from "./limits.ts";
export { matches } from "./match.ts";
export { type OperatorExamples, SEARCH_OPERATORS, type SearchOperatorRow } from "./operators.ts";
export { parseQuery, SEARCH_QUERY_LIMITS } from "./parse.ts";
export { printQuery } from "./print.ts";
export { parseSearchQuery } from "./query-param.ts";
export { type SearchContext, searchDocument, tokenize } from "./text.ts";
export { boundMs, idBounds, timeBounds } from "./time-bounds.ts";
