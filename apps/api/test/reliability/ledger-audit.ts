// The ledger equation, checked from the database against what clients were told. Credits are money: any
// difference between the grants, the balance, the usage rows and the charges clients saw is a bug.
// The books are read with the database's own SQL (a SQLite file, or a PostgreSQL database by its URL):
// the ports have no per-request usage nor grant totals, and the audit must not trust the code it checks.
import { Database } from "bun:sqlite";
import { parseDatabaseUrl } from "@social/core";
import { ACCOUNT_BALANCE } from "@social/store-postgres";
import { ledgerPathOf } from "@social/store-sqlite";
import { SQL } from "bun";

/** A response that reported a charge (0 for failures), keyed by the request id the server sent. */
export interface ObservedCharge {
  requestId: string;
  charged: number;
}

export interface AccountObservations {
  accountId: string;
  charges: readonly ObservedCharge[];
}

export interface AuditOptions {
  /**
   * Usage rows no client saw a response for. Zero for a clean run; after a crash, at most the requests
   * that were in flight when the process died (committed, but the answer was lost with the process).
   */
  unansweredAllowed: number;
}

/** One request charged in the ledger whose client was told otherwise, or told nothing. */
export interface UnreportedCharge {
  accountId: string;
  requestId: string;
  credits: number;
}

export interface LedgerAudit {
  /** Every discrepancy found, as a sentence naming the account; empty when the books balance. */
  problems: string[];
  /** Usage rows whose request got no answer at all (not refunded). */
  unanswered: UnreportedCharge[];
}

/** What the database holds for one account. */
interface Books {
  grants: number;
  balance: number;
  /** Usage rows: request id → credits. */
  usage: Map<string, number>;
  /** Request ids given back by a refund grant. */
  refunds: string[];
}

function sqliteBooks(databasePath: string, accountIds: readonly string[]): Map<string, Books> {
  const db = new Database(ledgerPathOf(databasePath), { readonly: true, strict: true });
  try {
    const totals = db.query<{ grants: number; balance: number }, [string]>(
      `SELECT (SELECT COALESCE(SUM(credits), 0) FROM grants WHERE account_id = ?1) AS grants,
              (SELECT balance FROM accounts WHERE id = ?1) AS balance`,
    );
    const usageRows = db.query<{ request_id: string; credits: number }, [string]>(
      "SELECT request_id, credits FROM usage WHERE account_id = ?",
    );
    // A refund gives back a charge whose answer never reached the client: such a request nets zero.
    const refundRows = db.query<{ request_id: string }, [string]>(
      "SELECT refund_of AS request_id FROM grants WHERE account_id = ? AND refund_of IS NOT NULL",
    );
    return new Map(
      accountIds.map((accountId) => {
        const { grants, balance } = totals.get(accountId) as { grants: number; balance: number };
        const usage = new Map(usageRows.all(accountId).map((row) => [row.request_id, row.credits]));
        return [accountId, { grants, balance, usage, refunds: refundRows.all(accountId).map((row) => row.request_id) }];
      }),
    );
  } finally {
    db.close();
  }
}

async function postgresBooks(url: string, accountIds: readonly string[]): Promise<Map<string, Books>> {
  const sql = new SQL(url, { max: 1 });
  try {
    // One snapshot for all of it, so no commit lands between the balance and the usage read.
    return await sql.begin("ISOLATION LEVEL REPEATABLE READ READ ONLY", async (tx) => {
      const books = new Map<string, Books>();
      for (const accountId of accountIds) {
        const [totals] = await tx<{ grants: string; balance: string }[]>`
          SELECT (SELECT COALESCE(SUM(credits), 0) FROM grants WHERE account_id = ${accountId}) AS grants,
                 (SELECT ${tx.unsafe(ACCOUNT_BALANCE)} FROM accounts a WHERE a.id = ${accountId}) AS balance`;
        const usage = await tx<{ request_id: string; credits: string }[]>`
          SELECT request_id, credits FROM usage WHERE account_id = ${accountId}`;
        const refunds = await tx<{ request_id: string }[]>`
          SELECT refund_of AS request_id FROM grants WHERE account_id = ${accountId} AND refund_of IS NOT NULL`;
        books.set(accountId, {
          grants: Number(totals?.grants),
          balance: Number(totals?.balance),
          usage: new Map(usage.map((row) => [row.request_id, Number(row.credits)])),
          refunds: refunds.map((row) => row.request_id),
        });
      }
      return books;
    });
  } finally {
    await sql.close();
  }
}

function examine(
  books: ReadonlyMap<string, Books>,
  accounts: readonly AccountObservations[],
  options: AuditOptions,
): LedgerAudit {
  const problems: string[] = [];
  const unanswered: UnreportedCharge[] = [];
  for (const { accountId, charges } of accounts) {
    const { grants, balance, usage, refunds } = books.get(accountId) as Books;
    const usageTotal = [...usage.values()].reduce((sum, credits) => sum + credits, 0);
    if (balance < 0) problems.push(`${accountId}: balance ${balance} is below zero`);
    if (grants !== balance + usageTotal) {
      problems.push(`${accountId}: grants ${grants} ≠ balance ${balance} + usage ${usageTotal}`);
    }
    const recorded = new Map(usage);
    let refunded = 0;
    for (const requestId of refunds) {
      refunded += recorded.get(requestId) ?? 0;
      recorded.delete(requestId);
      if (charges.some((charge) => charge.requestId === requestId && charge.charged > 0)) {
        problems.push(`${accountId}: ${requestId} was reported as charged and then refunded`);
      }
    }
    const reported = charges.reduce((sum, charge) => sum + charge.charged, 0);
    for (const { requestId, charged } of charges) {
      const inLedger = recorded.get(requestId);
      if (charged > 0 && inLedger !== charged) {
        problems.push(`${accountId}: ${requestId} reported ${charged} credits, the ledger has ${inLedger ?? "none"}`);
      }
      if (charged === 0 && inLedger !== undefined) {
        problems.push(`${accountId}: ${requestId} reported no charge, the ledger charged ${inLedger}`);
      }
      recorded.delete(requestId);
    }
    for (const [requestId, credits] of recorded) unanswered.push({ accountId, requestId, credits });
    if (options.unansweredAllowed === 0 && usageTotal - refunded !== reported) {
      problems.push(
        `${accountId}: usage ${usageTotal} - refunds ${refunded} ≠ ${reported} credits reported to clients`,
      );
    }
  }
  if (unanswered.length > options.unansweredAllowed) {
    problems.push(
      `${unanswered.length} usage rows have no answered request (at most ${options.unansweredAllowed} allowed)`,
    );
  }
  return { problems, unanswered };
}

/** Every discrepancy found in a SQLite file, as a sentence naming the account; empty when the books balance. */
export function auditLedger(
  databasePath: string,
  accounts: readonly AccountObservations[],
  options: AuditOptions = { unansweredAllowed: 0 },
): string[] {
  const books = sqliteBooks(
    databasePath,
    accounts.map((account) => account.accountId),
  );
  return examine(books, accounts, options).problems;
}

/** The same audit on the database of any DATABASE_URL, with the charges it found unreported. */
export async function auditDatabase(
  databaseUrl: string,
  accounts: readonly AccountObservations[],
  options: AuditOptions = { unansweredAllowed: 0 },
): Promise<LedgerAudit> {
  const location = parseDatabaseUrl(databaseUrl);
  const accountIds = accounts.map((account) => account.accountId);
  const books =
    location.kind === "postgres"
      ? await postgresBooks(location.url, accountIds)
      : sqliteBooks(location.path, accountIds);
  return examine(books, accounts, options);
}

interface KeySpendRow {
  id: string;
  credit_limit: number | string | null;
  limit_per: string | null;
  spent_total: number | string;
  spent: number | string;
}

/** Each key's limit, what its row counts, and what its usage rows less refunds add up to: the same SQL on both. */
/** Read from `keys`: SQLite's api_keys, or PostgreSQL's view that merges a key's spend from its shards. */
const keySpendsFrom = (keys: string) => `SELECT k.id, k.credit_limit, k.limit_per, k.spent_total,
  COALESCE((SELECT SUM(u.credits) FROM usage u WHERE u.key_id = k.id
            AND NOT EXISTS (SELECT 1 FROM grants g WHERE g.refund_of = u.request_id)), 0) AS spent
  FROM ${keys} k`;

async function keySpends(databaseUrl: string): Promise<KeySpendRow[]> {
  const location = parseDatabaseUrl(databaseUrl);
  if (location.kind === "postgres") {
    const sql = new SQL(location.url, { max: 1 });
    try {
      return [...(await sql.unsafe<KeySpendRow[]>(keySpendsFrom("api_key_totals")))];
    } finally {
      await sql.close();
    }
  }
  const db = new Database(ledgerPathOf(location.path), { readonly: true, strict: true });
  try {
    return db.query<KeySpendRow, []>(keySpendsFrom("api_keys")).all();
  } finally {
    db.close();
  }
}

/**
 * Every key's spend against its own limit, from the usage rows (less refunds) of the database of any
 * DATABASE_URL: never above a total limit, and equal to what the key row counts, which is what the
 * ledger decides by.
 */
export async function auditKeyLimits(databaseUrl: string): Promise<string[]> {
  return (await keySpends(databaseUrl)).flatMap((key) => {
    const [spent, counted, limit] = [Number(key.spent), Number(key.spent_total), key.credit_limit];
    return [
      ...(counted === spent ? [] : [`${key.id}: spent ${spent}, its row counts ${counted}`]),
      ...(key.limit_per === "total" && limit !== null && spent > Number(limit)
        ? [`${key.id}: spent ${spent}, above its limit of ${limit}`]
        : []),
    ];
  });
}

/** An answer as its client saw it, for the request-log audit. */
export interface LoggedAnswer {
  requestId: string;
  status: number;
  charged: number;
}

/**
 * The request log explains every answer once: an answer that charged nothing has exactly one entry
 * with the status its client got, and a charged one none (its usage row is its entry, which auditLedger
 * checks).
 */
export function auditRequestLog(databasePath: string, answers: readonly LoggedAnswer[]): string[] {
  const db = new Database(ledgerPathOf(databasePath), { readonly: true, strict: true });
  try {
    const logged = new Map<string, number[]>();
    for (const row of db
      .query<{ request_id: string; status: number }, []>("SELECT request_id, status FROM request_log")
      .all()) {
      logged.set(row.request_id, [...(logged.get(row.request_id) ?? []), row.status]);
    }
    const wrong = answers.filter((answer) => {
      const statuses = logged.get(answer.requestId) ?? [];
      return answer.charged === 0 ? statuses.length !== 1 || statuses[0] !== answer.status : statuses.length !== 0;
    });
    return wrong.length === 0
      ? []
      : [
          `${wrong.length} answers are not in the request log once with their status (or a charge is there twice), e.g. ${JSON.stringify(
            wrong.slice(0, 3).map((answer) => ({ ...answer, logged: logged.get(answer.requestId) ?? [] })),
          )}`,
        ];
  } finally {
    db.close();
  }
}
