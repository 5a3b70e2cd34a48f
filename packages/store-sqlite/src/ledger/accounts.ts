// Accounts and the credits granted to them. Every change of a balance outside a debit is a grant row
// written in the same transaction, so the ledger can always be reconciled.
import type { Database } from "bun:sqlite";
import type { AccountDetails, Grant } from "@social/core";
import {
  assertCredits,
  balanceLimitReached,
  GRANT_REASONS,
  LedgerError,
  MAX_BALANCE,
  newId,
  STARTING_CREDITS,
} from "@social/core";

interface AccountRow {
  id: string;
  name: string;
  balance: number;
  created_at: number;
  oidc_issuer: string | null;
  oidc_subject: string | null;
  low_balance_warning: number | null;
}

const ACCOUNT_COLUMNS = "id, name, balance, created_at, oidc_issuer, oidc_subject, low_balance_warning";

function toAccount(row: AccountRow): AccountDetails {
  return {
    id: row.id,
    name: row.name,
    balance: row.balance,
    createdAt: row.created_at,
    oidcIssuer: row.oidc_issuer,
    oidcSubject: row.oidc_subject,
    lowBalanceWarning: row.low_balance_warning,
  };
}

function insertAccount(
  db: Database,
  name: string,
  credits: number,
  reason: string,
  identity?: { issuer: string; subject: string },
): AccountDetails {
  const now = Date.now();
  const row = db
    .query<AccountRow, [string, string, number, string | null, string | null, number]>(
      `INSERT INTO accounts (id, name, balance, oidc_issuer, oidc_subject, created_at) VALUES (?, ?, ?, ?, ?, ?)
       RETURNING ${ACCOUNT_COLUMNS}`,
    )
    .get(newId("acct"), name, credits, identity?.issuer ?? null, identity?.subject ?? null, now);
  if (!row) throw new Error("INSERT … RETURNING returned no row");
  if (credits > 0) recordGrant(db, row.id, credits, reason, now);
  return toAccount(row);
}

function recordGrant(db: Database, accountId: string, credits: number, reason: string, now: number): void {
  db.query<void, [string, number, string, number]>(
    "INSERT INTO grants (account_id, credits, reason, created_at) VALUES (?, ?, ?, ?)",
  ).run(accountId, credits, reason, now);
}

/** A new account whose starting balance is recorded as its first grant. */
export function createAccount(db: Database, name: string, credits: number = STARTING_CREDITS): AccountDetails {
  assertCredits(credits, { allowZero: true });
  return db.transaction(() => insertAccount(db, name, credits, GRANT_REASONS.starting)).immediate();
}

export function getAccount(db: Database, accountId: string): AccountDetails | undefined {
  const row = db.query<AccountRow, [string]>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = ?`).get(accountId);
  return row ? toAccount(row) : undefined;
}

/** Adds `credits` to the balance and records why; returns the new balance. */
export function grantCredits(
  db: Database,
  accountId: string,
  credits: number,
  reason: string = GRANT_REASONS.operator,
): number {
  assertCredits(credits, { allowZero: false });
  return db
    .transaction(() => {
      const row = db
        .query<{ balance: number }, [number, string, number]>(
          "UPDATE accounts SET balance = balance + ? WHERE id = ? AND balance <= ? RETURNING balance",
        )
        .get(credits, accountId, MAX_BALANCE - credits);
      if (!row) {
        const account = getAccount(db, accountId);
        if (!account) throw new LedgerError("unknown_account", `no account ${accountId}`);
        throw balanceLimitReached(accountId, account.balance, credits);
      }
      recordGrant(db, accountId, credits, reason, Date.now());
      return row.balance;
    })
    .immediate();
}

/** The account's grants, refunds included, newest first. */
export function accountGrants(db: Database, accountId: string, limit: number): Grant[] {
  return db
    .query<Grant, [string, number]>(
      `SELECT credits, reason, created_at AS createdAt, refund_of AS refundOf FROM grants
       WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`,
    )
    .all(accountId, limit);
}

/** The newest grant that added credits, refunds left aside. */
export function lastTopUp(db: Database, accountId: string): Grant | undefined {
  return (
    db
      .query<Grant, [string]>(
        `SELECT credits, reason, created_at AS createdAt, refund_of AS refundOf FROM grants
         WHERE account_id = ? AND refund_of IS NULL ORDER BY created_at DESC, id DESC LIMIT 1`,
      )
      .get(accountId) ?? undefined
  );
}

export function setLowBalanceWarning(db: Database, accountId: string, credits: number | null): void {
  if (credits !== null) assertCredits(credits, { allowZero: true });
  const changed = db
    .query<{ id: string }, [number | null, string]>(
      "UPDATE accounts SET low_balance_warning = ? WHERE id = ? RETURNING id",
    )
    .get(credits, accountId);
  if (!changed) throw new LedgerError("unknown_account", `no account ${accountId}`);
}

/**
 * The account of a person signed in through an identity provider; the first sign-in creates it with
 * the starting credits. BEGIN IMMEDIATE serialises concurrent first sign-ins, so exactly one creates it.
 */
export function findOrCreateAccountBySubject(
  db: Database,
  issuer: string,
  subject: string,
  name: string,
): { account: AccountDetails; created: boolean } {
  return db
    .transaction(() => {
      const row = db
        .query<AccountRow, [string, string]>(
          `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE oidc_issuer = ? AND oidc_subject = ?`,
        )
        .get(issuer, subject);
      if (row) return { account: toAccount(row), created: false };
      const account = insertAccount(db, name, STARTING_CREDITS, GRANT_REASONS.signUp, { issuer, subject });
      return { account, created: true };
    })
    .immediate();
}
