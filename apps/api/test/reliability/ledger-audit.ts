// The ledger equation, checked from the database against what clients were told. Credits are money: any
// difference between the grants, the balance, the usage rows and the charges clients saw is a bug.
import { Database } from "bun:sqlite";

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

interface LedgerRow {
  grants: number;
  balance: number;
  usage: number;
}

/** Every discrepancy found, as a sentence naming the account; an empty list means the books balance. */
export function auditLedger(
  databasePath: string,
  accounts: readonly AccountObservations[],
  options: AuditOptions = { unansweredAllowed: 0 },
): string[] {
  const db = new Database(databasePath, { readonly: true, strict: true });
  try {
    const totals = db.query<LedgerRow, [string]>(
      `SELECT (SELECT COALESCE(SUM(credits), 0) FROM grants WHERE account_id = ?1) AS grants,
              (SELECT balance FROM accounts WHERE id = ?1) AS balance,
              (SELECT COALESCE(SUM(credits), 0) FROM usage WHERE account_id = ?1) AS usage`,
    );
    const usageRows = db.query<{ request_id: string; credits: number }, [string]>(
      "SELECT request_id, credits FROM usage WHERE account_id = ?",
    );
    // A refund gives back a charge whose answer never reached the client: such a request nets zero.
    const refundRows = db.query<{ request_id: string }, [string]>(
      "SELECT refund_of AS request_id FROM grants WHERE account_id = ? AND refund_of IS NOT NULL",
    );
    const problems: string[] = [];
    let unanswered = 0;
    for (const { accountId, charges } of accounts) {
      const { grants, balance, usage } = totals.get(accountId) as LedgerRow;
      if (balance < 0) problems.push(`${accountId}: balance ${balance} is below zero`);
      if (grants !== balance + usage) {
        problems.push(`${accountId}: grants ${grants} ≠ balance ${balance} + usage ${usage}`);
      }
      const recorded = new Map(usageRows.all(accountId).map((row) => [row.request_id, row.credits]));
      let refunded = 0;
      for (const { request_id } of refundRows.all(accountId)) {
        refunded += recorded.get(request_id) ?? 0;
        recorded.delete(request_id);
        if (charges.some((charge) => charge.requestId === request_id && charge.charged > 0)) {
          problems.push(`${accountId}: ${request_id} was reported as charged and then refunded`);
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
      unanswered += recorded.size;
      if (options.unansweredAllowed === 0 && usage - refunded !== reported) {
        problems.push(`${accountId}: usage ${usage} - refunds ${refunded} ≠ ${reported} credits reported to clients`);
      }
    }
    if (unanswered > options.unansweredAllowed) {
      problems.push(`${unanswered} usage rows have no answered request (at most ${options.unansweredAllowed} allowed)`);
    }
    return problems;
  } finally {
    db.close();
  }
}
