// Waiting work of many owners (accounts), served round-robin: each owner waits in its own queue, and the
// owner served last goes to the back, so one owner's flood gets one turn in N while N owners wait.
// Both adapters admit search steps through one; a full queue is the caller's cue to say "retry".
import { ApiError } from "@social/core";

export class OwnerTurns {
  readonly #maxWaiting: number;
  /** Waiting turns per owner, owners in turn order (a Map keeps insertion order). */
  readonly #queues = new Map<string, Array<() => void>>();
  #waiting = 0;

  /** `maxWaiting`: turns allowed to wait at once; one more is refused with 503 and Retry-After. */
  constructor(maxWaiting: number) {
    this.#maxWaiting = maxWaiting;
  }

  get waiting(): number {
    return this.#waiting;
  }

  /** Resolves when `serveNext` reaches this turn of `owner`. */
  wait(owner: string): Promise<void> {
    if (this.#waiting >= this.#maxWaiting) {
      return Promise.reject(
        new ApiError("service_unavailable", "Search is at capacity: retry in a second", { retryAfter: 1 }),
      );
    }
    return new Promise((resolve) => {
      const queue = this.#queues.get(owner);
      if (queue) queue.push(resolve);
      else this.#queues.set(owner, [resolve]);
      this.#waiting += 1;
    });
  }

  /** Lets the first waiting turn of the owner whose turn it is go on; false when nobody waits. */
  serveNext(): boolean {
    const next = this.#queues.entries().next();
    if (next.done) return false;
    const [owner, queue] = next.value;
    const resolve = queue.shift() as () => void;
    this.#queues.delete(owner);
    if (queue.length > 0) this.#queues.set(owner, queue);
    this.#waiting -= 1;
    resolve();
    return true;
  }
}
