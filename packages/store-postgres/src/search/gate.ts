// Searches run on the server, so they do not block this process, but each holds one of the pool's
// connections for up to its budget: unchecked, a flood of expensive searches would take every
// connection and lookups and charges would queue behind them. The gate lets a few searches run at once
// and queues the rest, admitting owners (accounts) round-robin, so one account's flood gets one turn in
// N while N accounts are searching. Past `maxWaiting` a search is told to retry.
import { ApiError } from "@social/core";

export class SearchGate {
  readonly #maxRunning: number;
  readonly #maxWaiting: number;
  /** Waiting searches per owner, owners in turn order (a Map keeps insertion order). */
  readonly #queues = new Map<string, Array<() => void>>();
  #running = 0;
  #waiting = 0;

  constructor(maxRunning: number, maxWaiting: number) {
    this.#maxRunning = maxRunning;
    this.#maxWaiting = maxWaiting;
  }

  /** Runs `work` in `owner`'s turn, once fewer than maxRunning searches are running. */
  async run<T>(owner: string, work: () => Promise<T>): Promise<T> {
    await this.#admit(owner);
    try {
      return await work();
    } finally {
      this.#running -= 1;
      this.#next();
    }
  }

  #admit(owner: string): Promise<void> {
    if (this.#running < this.#maxRunning && this.#waiting === 0) {
      this.#running += 1;
      return Promise.resolve();
    }
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

  /** Admits the owner whose turn it is, then moves that owner to the back. */
  #next(): void {
    const next = this.#queues.entries().next();
    if (next.done || this.#running >= this.#maxRunning) return;
    const [owner, queue] = next.value;
    const resolve = queue.shift() as () => void;
    this.#queues.delete(owner);
    if (queue.length > 0) this.#queues.set(owner, queue);
    this.#waiting -= 1;
    this.#running += 1;
    resolve();
  }
}
