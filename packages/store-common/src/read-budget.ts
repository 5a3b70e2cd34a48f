// The database time one read (a search page, a count) has spent against its budget (core's SearchLimits),
// the same rule on both adapters: only the read's own statements count, each timed by its adapter where
// nothing else runs (SQLite's steps on the event loop, PostgreSQL's statements on the server's clock).
// Waiting for a turn, a connection, a lock or the event loop is never the query's cost.
import { type BudgetedRead, budgetOf, type SearchLimits, searchBudgetExceeded } from "@social/core";

export class ReadBudget {
  readonly limits: SearchLimits;
  readonly read: BudgetedRead;
  #spentMs = 0;

  constructor(limits: SearchLimits, read: BudgetedRead = "search") {
    this.limits = limits;
    this.read = read;
  }

  /** Records `ms` of one of the read's statements. */
  spend(ms: number): void {
    this.#spentMs += Math.max(0, ms);
  }

  /** The ms left; none left is the read's refusal, the 400 that says how to narrow it. */
  left(): number {
    const left = budgetOf(this.limits, this.read) - this.#spentMs;
    if (left <= 0) throw searchBudgetExceeded(this.limits, this.read);
    return left;
  }
}
