// A batch whose connection died may have committed: the COMMIT can reach the server and its reply be
// lost with the connection. Its requests are answered 503, uncharged, so whatever the server did with
// them is taken back once it answers again: each is refunded, which gives back a charge that was made
// and does nothing for one that was not (refunds are idempotent, see PostgresLedger.refund). Until
// then they are kept here and retried every second; a process that ends first leaves them charged.
const RETRY_MS = 1000;

export interface Unsettled {
  accountId: string;
  requestId: string;
}

export class UnsettledDebits {
  readonly #refund: (debit: Unsettled) => Promise<void>;
  readonly #isOutage: (error: unknown) => boolean;
  readonly #waiting = new Map<string, Unsettled>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(refund: (debit: Unsettled) => Promise<void>, isOutage: (error: unknown) => boolean) {
    this.#refund = refund;
    this.#isOutage = isOutage;
  }

  /** The request ids not yet taken back. */
  get pending(): readonly Unsettled[] {
    return [...this.#waiting.values()];
  }

  add(debits: readonly Unsettled[]): void {
    for (const debit of debits) this.#waiting.set(debit.requestId, debit);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#waiting.size === 0) return;
    this.#timer = setTimeout(() => void this.#retry(), RETRY_MS);
    // Pending refunds do not keep a process alive that has nothing else to do.
    this.#timer.unref?.();
  }

  async #retry(): Promise<void> {
    for (const debit of this.#waiting.values()) {
      try {
        await this.#refund(debit);
        this.#waiting.delete(debit.requestId);
      } catch (error) {
        if (this.#isOutage(error)) break;
        // Anything else (the account is gone) will not change by retrying.
        this.#waiting.delete(debit.requestId);
      }
    }
    this.#timer = undefined;
    this.#schedule();
  }
}
