// The ports' conformance suites. An adapter's tests call each with the adapter's name and a factory of
// its fixture; every suite checks the adapter against a reference of its own (see README.md), never
// against another adapter.
export { type AccountsFixture, accountsConformance } from "./accounts.ts";
export { type IdempotencyFixture, idempotencyConformance } from "./idempotency.ts";
export { costOf, type LedgerFixture, ledgerConformance } from "./ledger.ts";
export { type MonitorsFixture, monitorsConformance } from "./monitors.ts";
export {
  checkSearchQueries,
  type LoadSearchWorld,
  SEARCH_ORACLE_LIMITS,
  type SearchRuns,
  type SearchWorld,
  type SearchWorldRecords,
  searchConformance,
} from "./search.ts";
export { FIRST_DAY as SEARCH_WORLD_START, type TweetSeed, textSeed } from "./search-world.ts";
export {
  type Books,
  type CrossProcessRemaining,
  type DebitOutcome,
  outcomeOf,
  replaySerially,
  SerialLedger,
  type SettledDebit,
} from "./serial-ledger.ts";
export { type SessionsFixture, sessionsConformance } from "./sessions.ts";
export { type StoreFixture, storeConformance } from "./store.ts";
export { collectWorld, defaultWorldTruth, isVisible, searchDocumentIn, type WorldTruth } from "./world-truth.ts";
