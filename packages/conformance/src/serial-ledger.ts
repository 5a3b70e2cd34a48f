// The ledger suite's reference: a ledger in memory that applies debits one at a time, deciding each with
// core's decideDebit as every adapter does, and keeps the books an adapter's tables must show. Debits
// made concurrently have no order a test can choose: `replaySerially` finds the one serial order their
// results admit and fails where there is none, which is what a lost, doubled or overdrawn debit leaves.
// Idempotency-Key reservations are not modelled: the idempotency suite checks debits made with one.
import {
  type DebitDecision,
  type DebitResult,
  decideDebit,
  type KeyOptions,
  type KeySpend,
  LedgerError,
  type LedgerErrorCode,
  refunded,
  type UsageRecord,
} from "@social/core";

/** What the tables hold for one account, read through a connection other than the ledger's. */
export interface Books {
  balance: number;
  /** Every credit added, starting credits and refunds included. */
  grants: number;
  usageRows: number;
  usageCredits: number;
  refunds: { refundOf: string; credits: number }[];
}

/** What a debit came to: its result, or the code of the LedgerError it was rejected with. */
export type DebitOutcome = DebitResult | { error: LedgerErrorCode };

/** A debit an adapter settled, with what it came to there. */
export interface SettledDebit {
  accountId: string;
  usage: UsageRecord;
  outcome: DebitOutcome;
}

interface ModelKey {
  accountId: string;
  revoked: boolean;
  expiresAt: number | null;
  spend: KeySpend;
}

interface Charge {
  accountId: string;
  keyId: string;
  credits: number;
  at: number;
  refunded: boolean;
}

/** The outcome of `debit`, a promise of an adapter's ledger; any error but a LedgerError is rethrown. */
export async function outcomeOf(debit: Promise<DebitResult>): Promise<DebitOutcome> {
  try {
    return await debit;
  } catch (error) {
    if (error instanceof LedgerError) return { error: error.code };
    throw error;
  }
}

export class SerialLedger {
  readonly #books = new Map<string, Books>();
  readonly #keys = new Map<string, ModelKey>();
  /** Every charge, by request id: a request id is charged at most once, whichever account it names. */
  readonly #charges = new Map<string, Charge>();

  /** An account whose starting `credits` are its first grant. */
  openAccount(accountId: string, credits: number): void {
    this.#books.set(accountId, { balance: credits, grants: credits, usageRows: 0, usageCredits: 0, refunds: [] });
  }

  addKey(accountId: string, keyId: string, options: KeyOptions = {}): void {
    const spend: KeySpend = { limit: options.limit ?? null, total: 0, today: 0, day: null };
    this.#keys.set(keyId, { accountId, revoked: false, expiresAt: options.expiresAt ?? null, spend });
  }

  grant(accountId: string, credits: number): void {
    const books = this.#account(accountId);
    books.balance += credits;
    books.grants += credits;
  }

  revokeKey(keyId: string): void {
    const key = this.#keys.get(keyId);
    if (key) key.revoked = true;
  }

  /** What `usage` would come to now, applied after every debit before it; changes nothing. */
  decide(accountId: string, usage: UsageRecord, now: number): DebitOutcome {
    return this.#outcome(this.#decision(accountId, usage, now));
  }

  debit(accountId: string, usage: UsageRecord, now: number): DebitOutcome {
    const decision = this.#decision(accountId, usage, now);
    if ("charge" in decision) {
      const { charge } = decision;
      const books = this.#account(accountId);
      books.balance = charge.remaining;
      books.usageRows += 1;
      books.usageCredits += usage.credits;
      charge.key.spend = charge.spend;
      this.#charges.set(usage.requestId, {
        accountId,
        keyId: usage.keyId,
        credits: usage.credits,
        at: now,
        refunded: false,
      });
    }
    return this.#outcome(decision);
  }

  /** Gives `requestId`'s charge back once, as a grant naming it; a request not charged to the account is left alone. */
  refund(accountId: string, requestId: string): DebitOutcome | undefined {
    const books = this.#books.get(accountId);
    if (!books) return { error: "unknown_account" };
    const charge = this.#charges.get(requestId);
    if (!charge || charge.accountId !== accountId || charge.refunded) return undefined;
    charge.refunded = true;
    books.balance += charge.credits;
    books.grants += charge.credits;
    books.refunds.push({ refundOf: requestId, credits: charge.credits });
    const key = this.#keys.get(charge.keyId);
    if (key) key.spend = refunded(key.spend, charge.credits, charge.at);
    return undefined;
  }

  books(accountId: string): Books {
    const books = this.#account(accountId);
    return { ...books, refunds: [...books.refunds] };
  }

  accountIds(): string[] {
    return [...this.#books.keys()];
  }

  #account(accountId: string): Books {
    const books = this.#books.get(accountId);
    if (!books) throw new Error(`the model has no account ${accountId}`);
    return books;
  }

  #decision(accountId: string, usage: UsageRecord, now: number): DebitDecision<Books, ModelKey> {
    const key = this.#keys.get(usage.keyId);
    return decideDebit(
      { accountId, usage },
      {
        account: this.#books.get(accountId),
        key: key && key.accountId === accountId ? key : undefined,
        alreadyCharged: this.#charges.has(usage.requestId),
        idempotencyHolder: undefined,
      },
      now,
    );
  }

  #outcome(decision: DebitDecision<Books, ModelKey>): DebitOutcome {
    if ("charge" in decision) return { ok: true, remaining: decision.charge.remaining };
    if ("result" in decision) return decision.result;
    return { error: decision.error.code };
  }
}

/** Whether `debit` lowered its account's balance: the only outcome that decides the debits after it. */
function lowersBalance({ usage, outcome }: SettledDebit): boolean {
  return "ok" in outcome && outcome.ok && usage.credits > 0;
}

/**
 * Applies `settled`, debits an adapter made concurrently, to `model` one by one in the serial order
 * their outcomes admit: at each step a debit whose outcome the model gives at that point, those that
 * lower no balance (refusals, rejections, free charges) first. Every other charge lowers the balance,
 * so at most one of them fits each step. Throws, naming the debits left, when no debit fits: no serial
 * history explains the results.
 */
export function replaySerially(model: SerialLedger, settled: readonly SettledDebit[], now: () => number): void {
  const pending = [...settled];
  while (pending.length > 0) {
    const fits = (debit: SettledDebit) =>
      Bun.deepEquals(model.decide(debit.accountId, debit.usage, now()), debit.outcome, true);
    const unchanged = pending.findIndex((debit) => !lowersBalance(debit) && fits(debit));
    const next = unchanged >= 0 ? unchanged : pending.findIndex(fits);
    const [debit] = next >= 0 ? pending.splice(next, 1) : [];
    if (debit === undefined) {
      const left = pending.map((each) => ({ requestId: each.usage.requestId, outcome: each.outcome }));
      throw new Error(`no serial order of the debits explains these outcomes: ${JSON.stringify(left.slice(0, 5))}`);
    }
    model.debit(debit.accountId, debit.usage, now());
  }
}
