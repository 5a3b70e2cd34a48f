// bun:sqlite runs every statement on the event loop, so a long search would hold up every other
// request in the process. Searches therefore run in short steps, and this lane admits one step per
// event-loop turn: between two steps the loop serves whatever else is ready (lookups, charges).
// Owners (accounts) take turns round-robin, so one account's flood of searches gets one step in N
// while N accounts are searching, instead of queueing everyone else's searches behind it.
import { ApiError } from "@social/core";

export class FairLane {
  readonly #maxWaiting: number;
  /** Waiting steps per owner, owners in turn order (a Map keeps insertion order). */
  readonly #queues = new Map<string, Array<() => void>>();
  #waiting = 0;
  #pumpScheduled = false;

  /** `maxWaiting`: steps allowed to wait at once; a search arriving past it is told to retry. */
  constructor(maxWaiting: number) {
    this.#maxWaiting = maxWaiting;
  }

  /** True when no step is waiting, so a new search's first step may run at once. */
  get idle(): boolean {
    return this.#waiting === 0;
  }

  /** Resolves when `owner` may run its next step; the step must run synchronously right after. */
  turn(owner: string): Promise<void> {
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
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#pumpScheduled) return;
    this.#pumpScheduled = true;
    setImmediate(() => this.#pump());
  }

  /** Admits the step of the owner whose turn it is, then moves that owner to the back. */
  #pump(): void {
    this.#pumpScheduled = false;
    const next = this.#queues.entries().next();
    if (next.done) return;
    const [owner, queue] = next.value;
    const resolve = queue.shift() as () => void;
    this.#queues.delete(owner);
    if (queue.length > 0) this.#queues.set(owner, queue);
    this.#waiting -= 1;
    resolve();
    if (this.#waiting > 0) this.#schedule();
  }
}
