// A batch whose connection died may have committed: the COMMIT can reach the server and its reply be
// lost with the connection. Its requests are answered 503, uncharged, so whatever the server did with
// them is taken back once it answers again. The batch's transaction id says what that was: committed,
// its debits are refunded (refunds are idempotent, see PostgresLedger.refund); aborted, there is
// nothing to take back; still in progress (the old backend has not finished, or a synchronous standby
// has not confirmed), it is asked again later, since a refund now would find nothing and the charge
// would land after it. Until settled, batches are kept here and retried every second; a process that
// ends first leaves their charges in place.
const RETRY_MS = 1000;

export type TransactionStatus = "committed" | "aborted" | "in progress";

export interface Unsettled {
  accountId: string;
  requestId: string;
}

export class UnsettledDebits {
  readonly #status: (xid: string) => Promise<TransactionStatus>;
  readonly #refund: (debit: Unsettled) => Promise<void>;
  readonly #isOutage: (error: unknown) => boolean;
  /** Debits per transaction id. */
  readonly #waiting = new Map<string, Unsettled[]>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    status: (xid: string) => Promise<TransactionStatus>,
    refund: (debit: Unsettled) => Promise<void>,
    isOutage: (error: unknown) => boolean,
  ) {
    this.#status = status;
    this.#refund = refund;
    this.#isOutage = isOutage;
  }

  /** The debits not yet settled. */
  get pending(): readonly Unsettled[] {
    return [...this.#waiting.values()].flat();
  }

  add(xid: string, debits: readonly Unsettled[]): void {
    this.#waiting.set(xid, [...(this.#waiting.get(xid) ?? []), ...debits]);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#waiting.size === 0) return;
    this.#timer = setTimeout(() => void this.#retry(), RETRY_MS);
    // Pending refunds do not keep a process alive that has nothing else to do.
    this.#timer.unref?.();
  }

  async #retry(): Promise<void> {
    for (const [xid, debits] of this.#waiting) {
      try {
        if (await this.#settle(xid, debits)) this.#waiting.delete(xid);
      } catch (error) {
        // An outage: asked again next time. Anything else will not change by retrying.
        if (this.#isOutage(error)) break;
        this.#waiting.delete(xid);
      }
    }
    this.#timer = undefined;
    this.#schedule();
  }

  /** Takes back what the transaction `xid` charged; false while it is still in progress. */
  async #settle(xid: string, debits: Unsettled[]): Promise<boolean> {
    const status = await this.#status(xid);
    if (status === "in progress") return false;
    if (status === "committed") {
      while (debits.length > 0) {
        await this.#refund(debits[0] as Unsettled);
        debits.shift();
      }
    }
    return true;
  }
}
