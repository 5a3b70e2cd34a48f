// bun:sqlite runs every statement on the event loop, so a long search would hold up every other
// request in the process. Searches therefore run in short steps, and this lane admits them in slices:
// in one event-loop turn, the steps waiting run one after another until `sliceMs` has passed, then the
// loop serves whatever else is ready (lookups, charges, new requests) before the next slice. A slice,
// not a single step, per turn: under load many searches wait, and a turn of a loop with open sockets
// costs about as much as a step, so one step per turn left a loaded server spending half its time
// turning. (A search alone still takes one step per turn: its next step waits for the slice to end.)
// Owners (accounts) take turns (OwnerTurns in @social/store-common), so one account's flood of searches
// gets one step in N while N accounts are searching, instead of queueing everyone else's behind it.
import { OwnerTurns } from "@social/store-common";

export class FairLane {
  readonly #turns: OwnerTurns;
  readonly #sliceMs: number;
  #pumpScheduled = false;
  /** performance.now() when the running slice began; undefined between slices. */
  #sliceStarted: number | undefined;

  /** `maxWaiting`: steps allowed to wait at once; a search arriving past it is told to retry. */
  constructor(maxWaiting: number, sliceMs: number) {
    this.#turns = new OwnerTurns(maxWaiting);
    this.#sliceMs = sliceMs;
  }

  /** True when no step is waiting, so a new search's first step may run at once. */
  get idle(): boolean {
    return this.#turns.waiting === 0;
  }

  /**
   * Resolves when `owner` may run its next step; the step must run synchronously right after, then
   * call `stepped`.
   */
  turn(owner: string): Promise<void> {
    const turn = this.#turns.wait(owner);
    if (this.#sliceStarted === undefined) this.#schedule();
    return turn;
  }

  /** A step admitted by this lane has run: the next one runs in the same slice while it lasts. */
  stepped(): void {
    if (this.#sliceStarted === undefined) return;
    if (performance.now() - this.#sliceStarted < this.#sliceMs && this.#turns.serveNext()) return;
    this.#sliceStarted = undefined;
    if (this.#turns.waiting > 0) this.#schedule();
  }

  #schedule(): void {
    if (this.#pumpScheduled) return;
    this.#pumpScheduled = true;
    setImmediate(() => this.#pump());
  }

  /** Starts a slice with the next waiting step. */
  #pump(): void {
    this.#pumpScheduled = false;
    if (this.#sliceStarted !== undefined) return;
    this.#sliceStarted = performance.now();
    if (!this.#turns.serveNext()) this.#sliceStarted = undefined;
  }
}
