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
  /** Which ledger made it, where several did: replayAsRead holds each one's balances to falling. */
  via?: string;
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
 * What a charge's `remaining` is when other processes charge the same account at once: the balance
 * right after it in the serial order (`exact`), or the balance as the charge read it (`as read`), which
 * the other processes' charges committed meanwhile may not have lowered yet: never less than the
 * balance once every debit settled, never more than the account ever held less the charge itself.
 */
export type CrossProcessRemaining = "exact" | "as read";

/**
 * Applies `settled`, debits an adapter made concurrently, to `model` one by one in the serial order
 * their outcomes admit: at each step a debit whose outcome the model gives at that point, those that
 * lower no balance (refusals, rejections, free charges) first. Every other charge lowers the balance,
 * so at most one of them fits each step. Throws, naming the debits left, when no debit fits: no serial
 * history explains the results. `as read` (see replayAsRead) holds charges to what they charged.
 */
export function replaySerially(
  model: SerialLedger,
  settled: readonly SettledDebit[],
  now: () => number,
  remaining: CrossProcessRemaining = "exact",
): void {
  if (remaining === "as read") {
    replayAsRead(model, settled, now);
    return;
  }
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

/**
 * The `as read` replay, for debits that only lower balances and limits: every charge applies to the
 * model (none overdraws or passes a limit, in any order); what the rest came to is what the model says
 * once all are applied, a refusal's remaining no less than the model's then, as when it was refused;
 * each charge's remaining lies within its bounds; and the balances one ledger reported, in the order
 * its debits were made (`settled`'s), only fall, each charge by its credits at least.
 */
function replayAsRead(model: SerialLedger, settled: readonly SettledDebit[], now: () => number): void {
  const lastSeen = new Map<string, number>();
  for (const { accountId, usage, outcome, via } of settled) {
    if (via === undefined || !("ok" in outcome) || (!outcome.ok && outcome.reason !== "balance")) continue;
    const ledger = JSON.stringify([via, accountId]);
    const highest = (lastSeen.get(ledger) ?? Number.POSITIVE_INFINITY) - (outcome.ok ? usage.credits : 0);
    if (outcome.remaining > highest) {
      throw new Error(
        `${usage.requestId} reported ${outcome.remaining} remaining, above the ${highest} its ledger left`,
      );
    }
    lastSeen.set(ledger, outcome.remaining);
  }
  const charges = settled.filter(({ outcome }) => "ok" in outcome && outcome.ok);
  for (const { accountId, usage } of charges) {
    const decided = model.debit(accountId, usage, now());
    if (!("ok" in decided && decided.ok)) {
      throw new Error(`no serial order of the debits explains charging ${usage.requestId}: ${JSON.stringify(decided)}`);
    }
  }
  for (const { accountId, usage, outcome } of settled) {
    if ("ok" in outcome && outcome.ok) {
      const { balance, grants } = model.books(accountId);
      if (outcome.remaining < balance || outcome.remaining > grants - usage.credits) {
        throw new Error(
          `${usage.requestId} reported ${outcome.remaining} remaining, outside ${balance}..${grants - usage.credits}`,
        );
      }
      continue;
    }
    const decided = model.decide(accountId, usage, now());
    const explained =
      "ok" in outcome && "ok" in decided && !decided.ok
        ? outcome.reason === decided.reason &&
          outcome.remaining >= decided.remaining &&
          outcome.remaining < usage.credits
        : Bun.deepEquals(decided, outcome, true);
    if (!explained) {
      throw new Error(
        `no serial order of the debits explains ${usage.requestId}: ${JSON.stringify(outcome)}, now ${JSON.stringify(decided)}`,
      );
    }
  }
}
