// bun:sqlite runs every statement on the event loop, so a long search would hold up every other
// request in the process. Searches therefore run in short steps, and this lane admits one step per
// event-loop turn: between two steps the loop serves whatever else is ready (lookups, charges).
// Owners (accounts) take turns (OwnerTurns in @social/store-kit), so one account's flood of searches
// gets one step in N while N accounts are searching, instead of queueing everyone else's behind it.
import { OwnerTurns } from "@social/store-kit";

export class FairLane {
  readonly #turns: OwnerTurns;
  #pumpScheduled = false;

  /** `maxWaiting`: steps allowed to wait at once; a search arriving past it is told to retry. */
  constructor(maxWaiting: number) {
    this.#turns = new OwnerTurns(maxWaiting);
  }

  /** True when no step is waiting, so a new search's first step may run at once. */
  get idle(): boolean {
    return this.#turns.waiting === 0;
  }

  /** Resolves when `owner` may run its next step; the step must run synchronously right after. */
  turn(owner: string): Promise<void> {
    const turn = this.#turns.wait(owner);
    this.#schedule();
    return turn;
  }

  #schedule(): void {
    if (this.#pumpScheduled) return;
    this.#pumpScheduled = true;
    setImmediate(() => this.#pump());
  }

  /** Admits one step, then leaves the loop to everything else until the next turn. */
  #pump(): void {
    this.#pumpScheduled = false;
    if (this.#turns.serveNext() && this.#turns.waiting > 0) this.#schedule();
  }
}
