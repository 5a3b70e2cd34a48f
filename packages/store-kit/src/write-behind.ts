// Writes that need not be on a request's path (the request log): appended without waiting, written in
// batches every `intervalMs`, or as soon as a batch is full, one batch at a time. What is queued while
// the database is away waits, up to `maxQueued` entries; past that the oldest are dropped and counted,
// so an outage never grows memory without bound. A failed batch is dropped and reported, not retried:
// these are records of answers already sent, not money.

export interface WriteBehindOptions {
  intervalMs: number;
  /** The most entries one write takes. */
  maxBatch: number;
  /** The most entries waiting; past it the oldest go. */
  maxQueued: number;
  /** Told of a batch that could not be written, or of entries dropped from a full queue. */
  onLoss: (lost: number, error?: unknown) => void;
}

export class WriteBehind<T> {
  readonly #write: (batch: T[]) => Promise<void>;
  readonly #options: WriteBehindOptions;
  #queue: T[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The batch being written, so that flush() waits for it and batches never overlap. */
  #writing: Promise<void> = Promise.resolve();

  constructor(write: (batch: T[]) => Promise<void>, options: WriteBehindOptions) {
    this.#write = write;
    this.#options = options;
  }

  append(entry: T): void {
    this.#queue.push(entry);
    const excess = this.#queue.length - this.#options.maxQueued;
    if (excess > 0) {
      this.#queue.splice(0, excess);
      this.#options.onLoss(excess);
    }
    if (this.#queue.length >= this.#options.maxBatch) {
      void this.#drain();
    } else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => void this.#drain(), this.#options.intervalMs);
      // A pending batch must not keep a process alive that is otherwise done (a CLI, a test).
      (this.#timer as { unref?: () => void }).unref?.();
    }
  }

  /** Writes everything queued; resolves once it is written (or reported lost). */
  flush(): Promise<void> {
    return this.#drain();
  }

  #drain(): Promise<void> {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#writing = this.#writing.then(async () => {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, this.#options.maxBatch);
        try {
          await this.#write(batch);
        } catch (error) {
          this.#options.onLoss(batch.length, error);
        }
      }
    });
    return this.#writing;
  }
}

/** A log line for entries the database could not take: the answers went out, only their record is lost. */
export function reportLoss(lost: number, error?: unknown): void {
  console.error(
    JSON.stringify({
      at: new Date().toISOString(),
      level: "warn",
      kind: "request_log_lost",
      entries: lost,
      ...(error === undefined ? {} : { error: String(error) }),
    }),
  );
}
