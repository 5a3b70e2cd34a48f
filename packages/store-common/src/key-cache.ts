// Every request checks its key before anything else, and reading it was one of the few statements a
// charged lookup costs. Active keys are therefore kept in memory for a second, and each adapter says when
// one must be forgotten sooner: PostgreSQL by a notification its triggers send, SQLite by a counter its
// triggers move (../../store-sqlite/src/ledger/key-changes.ts). Either fires when a key is made, revoked
// or changed, or an account's balance rises (grants, refunds), whichever process or tool wrote it; the
// process's own changes say so at once.
//
// What a cached check may get wrong, and why that is safe:
// - A balance lowered by another process's debits shows for up to a second. It only decides whether a
//   request starts (and the `remaining` of an error answer); the debit itself decides what is charged,
//   against the balance in the database. This process's own debits set the balance they left.
// - A change the adapter could not report (a lost notification): the second's expiry bounds how long a
//   revoked key still works, and the ledger checks revocation again at the debit.
// Unknown and revoked keys are never kept: a key created a moment later must work at once.
import type { DebitResult, KeyCheck } from "@social/core";

type ActiveKey = Extract<KeyCheck, { status: "active" }>;

/** How long a check is trusted without a change heard. */
const KEY_TTL_MS = 1000;
/** Bounds the memory: past it, the oldest check is dropped. */
const MAX_KEYS = 100_000;

export class KeyCache {
  readonly #checks = new Map<string, { check: ActiveKey; until: number }>();
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

  get(keyHash: string): ActiveKey | undefined {
    const entry = this.#checks.get(keyHash);
    if (entry === undefined) return undefined;
    if (entry.until > this.#now()) return entry.check;
    this.#forget(keyHash);
    return undefined;
  }

  /** What `remember` needs to know whether a change was heard while a check was being read. */
  get version(): number {
    return this.#heard;
  }

  /** Keeps `check`, read since `version`, unless a change was heard meanwhile. */
  remember(keyHash: string, check: KeyCheck, version: number): void {
    if (!this.#listening || check.status !== "active" || version !== this.#heard) return;
    if (this.#checks.size >= MAX_KEYS) this.#forget(this.#checks.keys().next().value as string);
    this.#checks.set(keyHash, { check, until: this.#now() + KEY_TTL_MS });
    const hashes = this.#byAccount.get(check.accountId);
    if (hashes) hashes.add(keyHash);
    else this.#byAccount.set(check.accountId, new Set([keyHash]));
  }

  /**
   * After this process's own debit, made since `version`: the balance it left (or, refused for the
   * balance, found) is the freshest there is, unless a change (credits added) was heard meanwhile. A
   * refusal for a key's limit says what that key has left, not the account.
   */
  debited(accountId: string, result: DebitResult, version: number): void {
    if (version !== this.#heard || (!result.ok && result.reason !== "balance")) return;
    const remaining = result.remaining;
    for (const hash of this.#byAccount.get(accountId) ?? []) {
      const entry = this.#checks.get(hash);
      if (entry) entry.check = { ...entry.check, balance: remaining };
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
