// Searches run on the server, so they do not block this process, but each holds one of the pool's
// connections for up to its budget: unchecked, a flood of expensive searches would take every
// connection and lookups and charges would queue behind them. The gate lets a few searches run at once
// and queues the rest, owners (accounts) taking turns (OwnerTurns in @social/store-common).
import { OwnerTurns } from "@social/store-common";

export class SearchGate {
  readonly #maxRunning: number;
  readonly #turns: OwnerTurns;
  #running = 0;

  constructor(maxRunning: number, maxWaiting: number) {
    this.#maxRunning = maxRunning;
    this.#turns = new OwnerTurns(maxWaiting);
  }

  /** Runs `work` in `owner`'s turn, once fewer than maxRunning searches are running. */
  async run<T>(owner: string, work: () => Promise<T>): Promise<T> {
    if (this.#running < this.#maxRunning && this.#turns.waiting === 0) this.#running += 1;
    // The slot is handed over by the search that ends, so the count does not change on the way.
    else await this.#turns.wait(owner);
    try {
      return await work();
    } finally {
      if (!this.#turns.serveNext()) this.#running -= 1;
    }
  }
}
