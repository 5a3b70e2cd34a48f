// Whether one debit is charged, refused (402) or rejected (a LedgerError), decided alike by every
// ledger. A ledger reads the facts of its batch's debits under the batch's locks, asks decideDebit for
// each in queue order, and applies each charge to its account and key before deciding the next debit,
// so the batch's later debits see it; then it writes what was charged.
import { LedgerError } from "../ledger-errors.ts";
import type { UsageRecord } from "../ports/ledger.ts";
import { invalidAmount } from "./amounts.ts";
import { type Shortfall, shortfallOf } from "./credit-refusal.ts";
import { allowanceOf, charged, type KeySpend } from "./key-spend.ts";

/** The account of a debit, its balance as the batch's earlier debits left it. */
export interface DebitAccount {
  balance: number;
}

/** The key of a debit, its spend as the batch's earlier debits left it. */
export interface DebitKey {
  revoked: boolean;
  /** Epoch ms; null for a key that never expires. */
  expiresAt: number | null;
  spend: KeySpend;
}

/**
 * The holder of the Idempotency-Key a debit was sent with. A retry that takes an abandoned reservation
 * over gives the first request's charge back, so the first request must not be charged after that.
 */
export interface IdempotencyHolder {
  requestId: string;
  /** Whether its answer is stored: a request that still holds the key is unanswered. */
  answered: boolean;
}

/** What a ledger knows of one debit, read in the debit's own transaction. */
export interface DebitFacts<Account extends DebitAccount, Key extends DebitKey> {
  /** Undefined: no such account. */
  account: Account | undefined;
  /** Undefined: no such key. */
  key: Key | undefined;
  /** Whether the request id was charged already (committed, or earlier in the batch). */
  alreadyCharged: boolean;
  /** Undefined when nobody holds the key (it was released) or the debit was sent without one. */
  idempotencyHolder: IdempotencyHolder | undefined;
}

/** The charge to apply: the account's balance and the key's spend after it. */
export interface DebitCharge<Account, Key> {
  account: Account;
  key: Key;
  remaining: number;
  spend: KeySpend;
}

export type DebitDecision<Account, Key> =
  | { charge: DebitCharge<Account, Key> }
  | { result: Shortfall }
  | { error: LedgerError };

/**
 * One debit's fate, in this order: an invalid amount, an unknown account, a balance or key limit too
 * short (refused: the only outcome answered 402), an unknown, revoked or expired key, an Idempotency-Key
 * another request took over, a request id already charged; otherwise it is charged.
 */
export function decideDebit<Account extends DebitAccount, Key extends DebitKey>(
  { accountId, usage }: { accountId: string; usage: UsageRecord },
  facts: DebitFacts<Account, Key>,
  now: number,
): DebitDecision<Account, Key> {
  const { account, key } = facts;
  const invalid = invalidAmount(usage.credits, { allowZero: true });
  if (invalid) return { error: invalid };
  if (!account) return { error: new LedgerError("unknown_account", `no account ${accountId}`) };
  const refusal = shortfallOf(account.balance, key && allowanceOf(key.spend, now), usage.credits);
  if (refusal) return { result: refusal };
  if (!key) return { error: new LedgerError("unknown_key", `no key ${usage.keyId}`) };
  // A key revoked or expired while its request was being read (or its check was cached): refused here.
  if (key.revoked) return { error: new LedgerError("revoked_key", `key ${usage.keyId} is revoked`) };
  if (key.expiresAt !== null && key.expiresAt <= now) {
    return { error: new LedgerError("expired_key", `key ${usage.keyId} has expired`) };
  }
  if (usage.idempotencyKey !== undefined && !holdsIdempotencyKey(facts.idempotencyHolder, usage)) {
    return {
      error: new LedgerError(
        "idempotency_key_taken",
        `request ${usage.requestId} no longer holds Idempotency-Key ${JSON.stringify(usage.idempotencyKey)}`,
      ),
    };
  }
  if (facts.alreadyCharged) return { error: duplicateRequest(usage) };
  const charge = {
    account,
    key,
    remaining: account.balance - usage.credits,
    spend: charged(key.spend, usage.credits, now),
  };
  return { charge };
}

function holdsIdempotencyKey(holder: IdempotencyHolder | undefined, usage: UsageRecord): boolean {
  return holder?.requestId === usage.requestId && !holder.answered;
}

/** The refusal of a second charge of one request id (a ledger also meets it as a unique violation). */
export function duplicateRequest(usage: UsageRecord): LedgerError {
  return new LedgerError("duplicate_request", `request ${usage.requestId} was already charged`);
}
