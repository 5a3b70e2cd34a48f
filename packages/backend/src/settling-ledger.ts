// The ledger as a serving process holds it, its writes in flight counted so that closing the database
// waits for them: a refund made as the process stops (an answer that could not be written) would
// otherwise be lost with the connection.
import type { DebitResult, KeyCheck, Ledger, UsageRecord } from "@social/core";

export class SettlingLedger implements Ledger {
  readonly #ledger: Ledger;
  readonly #writes = new Set<Promise<unknown>>();

  constructor(ledger: Ledger) {
    this.#ledger = ledger;
  }

  checkKey(keyHash: string): Promise<KeyCheck> {
    return this.#ledger.checkKey(keyHash);
  }

  balance(accountId: string): Promise<number> {
    return this.#ledger.balance(accountId);
  }

  debit(accountId: string, usage: UsageRecord): Promise<DebitResult> {
    return this.#counted(this.#ledger.debit(accountId, usage));
  }

  refund(accountId: string, requestId: string): Promise<void> {
    return this.#counted(this.#ledger.refund(accountId, requestId));
  }

  /** Resolves once no write is in flight, those started meanwhile included; a failed write is its caller's. */
  async settled(): Promise<void> {
    while (this.#writes.size > 0) await Promise.allSettled([...this.#writes]);
  }

  #counted<T>(write: Promise<T>): Promise<T> {
    this.#writes.add(write);
    const forget = () => this.#writes.delete(write);
    write.then(forget, forget);
    return write;
  }
}
