// Every request checks its key before anything else, and on PostgreSQL that check was one of the three
// statements a charged lookup costs. Active keys are therefore kept in memory for a second, and the
// database says when one must be forgotten sooner: a trigger (./schema.ts) notifies `key_changes` with
// the account id when one of its keys is revoked or its balance rises (grants, refunds), and every
// process listening forgets that account's keys at once.
//
// What a cached check may get wrong, and why that is safe:
// - A balance lowered by another process's debits shows for up to a second. It only decides whether a
//   request starts (and the `remaining` of an error answer); the debit itself decides what is charged,
//   against the balance in the database.
// - A notification lost with the listening connection: the second's expiry bounds how long a revoked
//   key still works, and every (re)subscription forgets everything, since changes may have been missed.
// Unknown and revoked keys are never kept: a key created a moment later must work at once.
import type { KeyCheck } from "@social/core";
import type { SQL } from "bun";

type ActiveKey = Extract<KeyCheck, { status: "active" }>;

/** The channel the triggers of ./schema.ts notify. */
const KEY_CHANGES_CHANNEL = "key_changes";
/** How long a check is trusted without a notification. */
const KEY_TTL_MS = 1000;
/** Bounds the memory: past it, the oldest check is dropped. */
const MAX_KEYS = 100_000;

export class KeyCache {
  readonly #checks = new Map<string, { check: ActiveKey; until: number }>();
  /** The cached key digests of each account. */
  readonly #byAccount = new Map<string, Set<string>>();
  readonly #now: () => number;
  /** Set once the database acknowledged the subscription; nothing is kept before. */
  #listening = false;
  /**
   * Counts the notifications heard: a check read while one arrived may predate the change it reports,
   * so it is answered but not kept.
   */
  #heard = 0;

  constructor(now: () => number) {
    this.#now = now;
  }

  /** Subscribes to the database's notifications; until it is acknowledged, nothing is cached. */
  async listen(sql: SQL): Promise<void> {
    await sql.listen(
      KEY_CHANGES_CHANNEL,
      (accountId) => this.changed(accountId),
      () => {
        this.#heard += 1;
        this.#checks.clear();
        this.#byAccount.clear();
        this.#listening = true;
      },
    );
  }

  /**
   * An account's keys or balance changed: what is kept of it is forgotten, and a check being read now
   * is not kept. Said by the notifications and, without waiting for one, by this process's own changes.
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

  /** What `remember` needs to know whether the database spoke while a check was being read. */
  get version(): number {
    return this.#heard;
  }

  /** Keeps `check`, read since `version`, unless a notification arrived meanwhile. */
  remember(keyHash: string, check: KeyCheck, version: number): void {
    if (!this.#listening || check.status !== "active" || version !== this.#heard) return;
    if (this.#checks.size >= MAX_KEYS) this.#forget(this.#checks.keys().next().value as string);
    this.#checks.set(keyHash, { check, until: this.#now() + KEY_TTL_MS });
    const hashes = this.#byAccount.get(check.accountId);
    if (hashes) hashes.add(keyHash);
    else this.#byAccount.set(check.accountId, new Set([keyHash]));
  }

  /**
   * After this process's own debit, made since `version`: what the database then held is the freshest
   * balance there is, unless a notification (credits added) arrived meanwhile.
   */
  debited(accountId: string, remaining: number, version: number): void {
    if (version !== this.#heard) return;
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
