// Writes that need not be on a request's path (the request log): appended without waiting, written in
// batches every `intervalMs`, or as soon as a batch is full, by one drain at a time. A batch the
// database refuses is tried again, after a pause that grows, a few times; what is appended meanwhile
// waits behind it. The queue never holds more than `maxQueued` entries: past that the oldest go and are
// counted, so an outage never grows memory without bound. These are records of answers already sent,
// not money: a batch still refused after its tries is reported lost.

export interface WriteBehindOptions {
  intervalMs: number;
  /** The most entries one write takes. */
  maxBatch: number;
  /** The most entries waiting; past it the oldest go. */
  maxQueued: number;
  /** Told of entries dropped from a full queue, or of a batch given up (with the database's error). */
  onLoss: (lost: number, error?: unknown) => void;
}

/** Tries of one batch before it is given up, and the first pause between them (doubling each time). */
const ATTEMPTS = 4;
const FIRST_RETRY_MS = 200;

/** A pause that does not keep a finished process alive. */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    (timer as { unref?: () => void }).unref?.();
  });
}

export class WriteBehind<T> {
  readonly #write: (batch: T[]) => Promise<void>;
  readonly #options: WriteBehindOptions;
  #queue: T[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The drain under way, which runs until the queue is empty. */
  #draining: Promise<void> | undefined;

  constructor(write: (batch: T[]) => Promise<void>, options: WriteBehindOptions) {
    this.#write = write;
    this.#options = options;
  }

  append(entry: T): void {
    this.#queue.push(entry);
    this.#trim();
    // A drain under way takes it; otherwise a full batch goes now, a smaller one after the interval.
    if (this.#draining) return;
    if (this.#queue.length >= this.#options.maxBatch) void this.#drain();
    else this.#schedule();
  }

  /** Writes everything queued; resolves once it is written (or reported lost). */
  flush(): Promise<void> {
    return this.#drain();
  }

  #trim(): void {
    const excess = this.#queue.length - this.#options.maxQueued;
    if (excess <= 0) return;
    this.#queue.splice(0, excess);
    this.#options.onLoss(excess);
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#queue.length === 0) return;
    this.#timer = setTimeout(() => void this.#drain(), this.#options.intervalMs);
    // A pending batch must not keep a process alive that is otherwise done (a CLI, a test).
    (this.#timer as { unref?: () => void }).unref?.();
  }

  #drain(): Promise<void> {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#draining ??= this.#run().finally(() => {
      this.#draining = undefined;
      this.#schedule();
    });
    return this.#draining;
  }

  async #run(): Promise<void> {
    let failures = 0;
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#options.maxBatch);
      try {
        await this.#write(batch);
        failures = 0;
      } catch (error) {
        failures++;
        if (failures >= ATTEMPTS) {
          this.#options.onLoss(batch.length, error);
          failures = 0;
          continue;
        }
        this.#queue.unshift(...batch);
        this.#trim();
        await pause(FIRST_RETRY_MS * 2 ** (failures - 1));
      }
    }
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
