// How a search's transaction spends its time (./execute.ts decides its statements). Only the work of
// the query itself counts against its budget; waiting for the database is not the query's cost. It has
// a bound of its own (SearchLimits.waitMs), past which the search is 503 with Retry-After:
//
// - The transaction first waits for a connection, then for the locks: its opening takes those of the
//   tables a search reads and of every index of theirs (the planner locks every index of a table it
//   plans for), and keeps them to its end, so no statement of the search waits for another session's
//   REINDEX, ALTER TABLE or VACUUM FULL. Both waits share the bound: `lock_timeout` and
//   `statement_timeout` are what is left of it, for the opening and for the first statement, a fixed
//   one of the adapter's that is not counted against the budget.
// - Each later statement reports its own time, read on the server's clock once its rows are all made,
//   from its start: the round trips, and the time this process's event loop takes to come back to the
//   search, are not in it (Bun sends a transaction's statements one reply after another, and under load
//   every reply waits for the loop; counting that refused searches that had done little). Those times
//   add up against the budget (ReadBudget), and each statement's `statement_timeout` is what is left.
import { type BudgetedRead, databaseBusy, type SearchLimits, searchBudgetExceeded } from "@social/core";
import { ReadBudget } from "@social/store-common";
import { SQL } from "bun";

const STATEMENT_TIMEOUT = "57014";
const LOCK_NOT_AVAILABLE = "55P03";

/**
 * `text` with its time on the server added to its rows (and one row of nulls when it has none): the
 * aggregate reads the clock after every row of `text` is made, and statement_timestamp() is when the
 * server was sent the statement to run (after its planning's round trip, when new to the connection).
 */
function timed(text: string): string {
  return `WITH step AS MATERIALIZED (${text})
    SELECT step.*, timing.ms AS step_ms, timing.n AS step_rows FROM (
      SELECT (extract(epoch FROM clock_timestamp() - statement_timestamp()) * 1000)::float8 AS ms, count(*)::int AS n
      FROM step
    ) timing LEFT JOIN step ON true`;
}

type Timed = { step_ms: number; step_rows: number };

/**
 * Opens the transaction, bounds its waits at `ms` and takes its locks, in one round trip: the statements
 * of a query sent as text run in order, each planned anew, so the last waits for its locks under the
 * settings before it (`ms` is this process's own number, never a client's).
 */
function opening(ms: number): string {
  return `BEGIN; SET LOCAL lock_timeout = ${ms}; SET LOCAL statement_timeout = ${ms};
    SELECT FROM tweets, world_meta WHERE false`;
}

/** One statement of a search, and what its rows become. */
export interface Statement<Out> {
  text: string;
  values: unknown[];
  result(rows: unknown[]): Out;
}

/** A statement whose rows are `Row`s (as Bun's own queries, unchecked). */
export function statement<Row, Out>(text: string, values: unknown[], result: (rows: Row[]) => Out): Statement<Out> {
  return { text, values, result: (rows) => result(rows as Row[]) };
}

/** A search's statements after its first, each one step timed against the budget. */
export class SearchSteps {
  readonly #tx: SQL;
  readonly #budget: ReadBudget;

  constructor(tx: SQL, budget: ReadBudget) {
    this.#tx = tx;
    this.#budget = budget;
  }

  /**
   * Runs `statement` after `settings`, a SELECT of set_config calls whose $1 is the statement timeout:
   * past the budget, the read's 400 without running it.
   */
  async run<Out>(settings: string, statement: Statement<Out>): Promise<Out> {
    await this.#tx.unsafe(settings, [String(Math.ceil(this.#budget.left()))]);
    const rows = await this.#tx.unsafe<Timed[]>(timed(statement.text), statement.values);
    const [first] = rows;
    this.#budget.spend(first?.step_ms ?? 0);
    if (first === undefined || first.step_rows === 0) return statement.result([]);
    return statement.result(rows.map(({ step_ms, step_rows, ...row }) => row));
  }
}

/**
 * Runs one search in a transaction of its own: `first` once the connection and the locks are had within
 * the wait bound, then `work` with what it returned, as steps within the budget of `read`.
 */
export async function searchTransaction<First, T>(
  sql: SQL,
  limits: SearchLimits,
  read: BudgetedRead,
  first: (tx: SQL) => Promise<First>,
  work: (steps: SearchSteps, first: First) => Promise<T>,
): Promise<T> {
  const waitEnds = performance.now() + limits.waitMs;
  const tx = await sql.reserve({ signal: AbortSignal.timeout(limits.waitMs) }).catch((error: unknown) => {
    throw isTimeout(error) ? databaseBusy(limits) : error;
  });
  let waiting = true;
  try {
    await tx.unsafe(opening(Math.max(1, Math.ceil(waitEnds - performance.now())))).simple();
    const firstResult = await first(tx);
    waiting = false;
    const result = await work(new SearchSteps(tx, new ReadBudget(limits, read)), firstResult);
    await tx.unsafe("COMMIT").simple();
    return result;
  } catch (error) {
    // A connection left in a transaction is closed by Bun rather than pooled: this only spares that.
    await tx
      .unsafe("ROLLBACK")
      .simple()
      .catch(() => {});
    throw refusalOf(error, limits, read, waiting) ?? error;
  } finally {
    await tx.release();
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof DOMException && error.name === "TimeoutError";
}

/**
 * A lock not had within the wait bound, or the opening or the first statement timed out: the database
 * kept the search waiting (503). A later statement timed out: the query's own work spent the budget (400).
 */
function refusalOf(error: unknown, limits: SearchLimits, read: BudgetedRead, waiting: boolean): Error | undefined {
  if (!(error instanceof SQL.PostgresError)) return undefined;
  if (error.errno === LOCK_NOT_AVAILABLE || (waiting && error.errno === STATEMENT_TIMEOUT)) return databaseBusy(limits);
  if (error.errno === STATEMENT_TIMEOUT) return searchBudgetExceeded(limits, read);
  return undefined;
}
