// Every billing rule, and where it lives. A rule is fixed in its module here; the adapters only lock and
// read rows, ask these functions and write what they answer.
//
//   costs.ts           what a call costs: SPEC.md's four cost rules, and which one prices an entry's call
//   request-budget.ts  what a call may cost before it is read: max_credits, the dry-run quote, the maxima docs show
//   credit-refusal.ts  whether the balance or the key's limit covers a cost (shortfallOf), and the 402 saying not
//   key-spend.ts       a key's limit (in total or per UTC day): what it leaves, what a charge and a refund do to it
//   debit.ts           one debit's fate in a ledger's batch (decideDebit): charged, refused or rejected, and why
//   amounts.ts         the amounts credits move in, and the most an account can hold
//   grants.ts          the starting credits, and the reason each kind of grant is recorded with
//   low-balance.ts     when the dashboard warns that credits run low
//
// Where they are applied: ../execute.ts refuses a key that cannot pay the base cost before any work,
// debits the cost after the read and refunds an answer not delivered. The ledgers
// (packages/store-sqlite/src/ledger/sqlite-ledger.ts, packages/store-postgres/src/ledger/postgres-ledger.ts)
// decide each debit with decideDebit, and refund in SQL: the usage row's credits, once per request.
export { assertCredits, balanceLimitReached, MAX_BALANCE } from "./amounts.ts";
export * from "./costs.ts";
export {
  creditsText,
  describeFit,
  describeKeyLimit,
  describeShortfall,
  type FewerItems,
  fewerItemsOf,
  type Shortfall,
} from "./credit-refusal.ts";
export * from "./debit.ts";
export * from "./grants.ts";
export { allowanceOf, charged, type KeySpend, refunded, utcDayOf } from "./key-spend.ts";
export * from "./low-balance.ts";
export * from "./request-budget.ts";
