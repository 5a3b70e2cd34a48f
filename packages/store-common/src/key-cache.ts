// Every request checks its key before anything else, and reading it was one of the few statements a
// charged lookup costs. Active keys are therefore kept in memory for a second, and each adapter says when
// one must be forgotten sooner: PostgreSQL by a notification its triggers send, SQLite by a counter its
// triggers move (../../store-sqlite/src/ledger/key-changes.ts). Either fires when a key is revoked, its
// limit or expiry changes, or what it may spend rises (an account's balance, a limited key's spend
// falling: grants, refunds), whichever process or tool wrote it; the process's own changes say so at
// once.
//
// What a cached check may get wrong, and why that is safe:
// - A balance or a key's allowance lowered by another process's debits shows for up to a second. They
//   only decide whether a request starts (and the `remaining` of an error answer); the debit itself
//   decides what is charged, against the balance and the spend in the database. This process's own
//   debits set the balance they left and add their charge to the key's spend; the allowance is worked
//   out at each check, so a day limit starts over at midnight in a kept check too.
// - A change the adapter could not report (a lost notification): the second's expiry bounds how long a
//   revoked key still works, and the ledger checks revocation again at the debit.
// Unknown and revoked keys are never kept: a key created a moment later must work at once.
import { allowanceOf, charged, type DebitResult, type KeyCheck, type KeySpend } from "@social/core";
import { keySpendOf } from "./key-spend.ts";
import { isKeyDigest, type KeyRowOf, keyCheckOf } from "./keys.ts";

type ActiveKey = Extract<KeyCheck, { status: "active" }>;

/** A kept check, with the spend its allowance is worked out from at each check. */
interface Kept {
  check: ActiveKey;
  spend: KeySpend;
  until: number;
  /** In the order checks were kept: whether it was read before a debit was asked for. */
  order: number;
}

/** A debit this process asked for, as `debited` needs it once it is settled. */
export interface AskedDebit {
  keyId: string;
  credits: number;
  /**
   * When it was asked for, no later than the instant the ledger stamps it: should the two fall on either
   * side of a UTC midnight, the charge counts on the earlier day, which leaves the new day's allowance
   * too high, never too low.
   */
  at: number;
  /** Changes heard by then. */
  version: number;
  /** Checks kept by then: only those cannot hold its charge yet. */
  kept: number;
}

/** How long a check is trusted without a change heard. */
const KEY_TTL_MS = 1000;
/** Bounds the memory: past it, the oldest check is dropped. */
const MAX_KEYS = 100_000;

export class KeyCache {
  readonly #checks = new Map<string, Kept>();
  /** The cached key digests of each account. */
  readonly #byAccount = new Map<string, Set<string>>();
  readonly #now: () => number;
  /** Set once the adapter can tell changes (startOver); nothing is kept before. */
  #listening = false;
  /**
   * Counts the changes heard: a check read while one arrived may predate the change it reports, so it
   * is answered but not kept.
   */
  #heard = 0;
  /** Counts the checks kept. */
  #keptCount = 0;

  constructor(now: () => number) {
    this.#now = now;
  }

  /**
   * The adapter can tell changes from now on, and anything may have changed before (its signal said
   * so, or was not heard): everything kept is forgotten, and a check being read now is not kept.
   */
  startOver(): void {
    this.#heard += 1;
    this.#checks.clear();
    this.#byAccount.clear();
    this.#listening = true;
  }

  /**
   * An account's keys or balance changed: what is kept of it is forgotten, and a check being read now
   * is not kept. Said by this process's own changes, without waiting for the adapter's signal.
   */
  changed(accountId: string): void {
    this.#heard += 1;
    this.#forgetAccount(accountId);
  }

  /**
   * Ledger.checkKey on either adapter: the check of `keyHash` as of `now` (the ledger's clock), kept or
   * made from the row `read` finds (none: the key is unknown), and then kept unless a change was heard
   * while it was read.
   */
  async check(
    keyHash: string,
    now: number,
    read: () => KeyRowOf<number | string> | null | undefined | Promise<KeyRowOf<number | string> | undefined>,
  ): Promise<KeyCheck> {
    if (!isKeyDigest(keyHash)) return { status: "unknown" };
    const kept = this.#kept(keyHash, now);
    if (kept !== undefined) return kept;
    const version = this.#heard;
    const row = await read();
    const check = keyCheckOf(row, keyHash, now);
    if (row && check.status === "active") this.#keep(keyHash, check, keySpendOf(row), version);
    return check;
  }

  /** The kept check of `keyHash`, its allowance as of `now`; undefined: read it. */
  #kept(keyHash: string, now: number): ActiveKey | undefined {
    const entry = this.#checks.get(keyHash);
    if (entry === undefined) return undefined;
    if (entry.until <= this.#now()) {
      this.#forget(keyHash);
      return undefined;
    }
    const allowance = allowanceOf(entry.spend, now);
    return allowance === null ? entry.check : { ...entry.check, allowance };
  }

  /** Keeps `check`, read since `version` with the key's `spend`, unless a change was heard meanwhile. */
  #keep(keyHash: string, check: ActiveKey, spend: KeySpend, version: number): void {
    if (!this.#listening || version !== this.#heard) return;
    if (this.#checks.size >= MAX_KEYS) this.#forget(this.#checks.keys().next().value as string);
    this.#keptCount += 1;
    this.#checks.set(keyHash, { check, spend, until: this.#now() + KEY_TTL_MS, order: this.#keptCount });
    const hashes = this.#byAccount.get(check.accountId);
    if (hashes) hashes.add(keyHash);
    else this.#byAccount.set(check.accountId, new Set([keyHash]));
  }

  /** What `debited` will need of a debit of `credits` with `keyId` asked for `at` (the ledger's clock). */
  asked(keyId: string, credits: number, at: number): AskedDebit {
    return { keyId, credits, at, version: this.#heard, kept: this.#keptCount };
  }

  /**
   * After this process's own debit: the balance it left (or, refused for the balance, found) is the
   * freshest there is, unless a change (credits added) was heard since it was asked for. A charge adds
   * to its key's spend in the checks kept before it was asked for; one kept since may hold it already
   * and stays as read. A refusal for a key's limit says what that key has left, not the account.
   */
  debited(accountId: string, result: DebitResult, asked: AskedDebit): void {
    if (asked.version !== this.#heard || (!result.ok && result.reason !== "balance")) return;
    for (const hash of this.#byAccount.get(accountId) ?? []) {
      const entry = this.#checks.get(hash);
      if (entry === undefined) continue;
      entry.check = { ...entry.check, balance: result.remaining };
      if (result.ok && entry.check.keyId === asked.keyId && entry.order <= asked.kept) {
        entry.spend = charged(entry.spend, asked.credits, asked.at);
      }
    }
  }

  #forgetAccount(accountId: string): void {
    for (const hash of this.#byAccount.get(accountId) ?? []) this.#checks.delete(hash);
    this.#byAccount.delete(accountId);
  }

  #forget(keyHash: string): void {
    const entry = this.#checks.get(keyHash);
    if (entry === undefined) return;
    this.#checks.delete(keyHash);
    const hashes = this.#byAccount.get(entry.check.accountId);
    hashes?.delete(keyHash);
    if (hashes?.size === 0) this.#byAccount.delete(entry.check.accountId);
  }
}
