// Whether an answer reaches its client, as far as a server can tell: the signal every HTTP surface
// hands the pipeline (core's lost-answers.ts refunds a charge when it aborts). Bun aborts
// request.signal when the connection closes before the answer is written whole, even after the
// handler returned; but an answer written to a connection its client has already reset is dropped
// without a word (the write fails, and nothing fires). The kernel knows of the reset at once: the
// connection has no peer any more. So the connection is looked at as the answer is handed to Bun, and
// an answer it can no longer take counts as lost; a reset in the moment between that look and Bun's
// write goes unseen. An answer handed whole to the kernel counts as delivered: whether the client then
// reads it, no server can know.

/** What tells whether a request's connection still has a peer: Bun's server (none for app.handle). */
export interface PeerLookup {
  requestIP(request: Request): unknown;
}

export class AnswerDelivery {
  readonly #request: Request;
  readonly #server: PeerLookup | null;
  /** Made on first use: only a request that reads (and may charge) needs one. */
  #signal: AbortSignal | undefined;
  #lost: AbortController | undefined;
  /** Whether the connection had a peer when the signal was asked for: without a socket there is none to lose. */
  #connected = false;

  constructor(request: Request, server: PeerLookup | null) {
    this.#request = request;
    this.#server = server;
  }

  /** Aborted when the answer cannot reach the client: the pipeline then charges nothing, or refunds. */
  get signal(): AbortSignal {
    if (!this.#signal) {
      this.#lost = new AbortController();
      this.#connected = this.#hasPeer();
      this.#signal = AbortSignal.any([this.#request.signal, this.#lost.signal]);
    }
    return this.#signal;
  }

  /** Called as the answer goes to Bun: a connection its client has reset cannot take it. */
  handOver(): void {
    if (this.#connected && !this.#hasPeer()) this.#lost?.abort();
  }

  #hasPeer(): boolean {
    return (this.#server?.requestIP(this.#request) ?? null) !== null;
  }
}
