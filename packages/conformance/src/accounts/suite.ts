// What every topic of the Accounts conformance suite (../accounts.ts) shares: the fixture each test gets
// and the helpers its assertions use.
import { expect } from "bun:test";
import { type Accounts, type Ledger, LedgerError, type RequestLog } from "@social/core";

export interface AccountsFixture {
  accounts: Accounts;
  /** The same database through connections of its own, as a second process reaches it. */
  peer: Accounts;
  /** A ledger on the same database on the given clock: it writes the usage rows the summaries read. */
  ledger(now: () => number): Ledger;
  /** The request log on the same database: it writes the uncharged answers the log reads. */
  requestLog(): RequestLog;
  /** One account's grants, oldest first, read outside the port. */
  grants(accountId: string): Promise<{ credits: number; reason: string }[]>;
  /** Every stored value of the key table as text: where a secret that leaked into storage would show. */
  storedKeys(): Promise<string>;
  /** A key row written outside the port under a chosen prefix, as two keys that share one leave. */
  insertKeyWithPrefix(accountId: string, prefix: string): Promise<void>;
  close(): Promise<void>;
}

/** A test of the suite, given the fixture the suite opens before it (and closes after) and its Accounts. */
export type AccountsTest = (
  name: string,
  body: (run: { fixture: AccountsFixture; accounts: Accounts }) => Promise<void>,
  timeoutMs?: number,
) => void;

export const DAY = 86_400_000;

export async function ledgerErrorOf(work: Promise<unknown>): Promise<LedgerError["code"]> {
  try {
    await work;
  } catch (error) {
    expect(error).toBeInstanceOf(LedgerError);
    return (error as LedgerError).code;
  }
  throw new Error("expected a LedgerError");
}

export const utcDay = (time: number) => new Date(time).toISOString().slice(0, 10);
