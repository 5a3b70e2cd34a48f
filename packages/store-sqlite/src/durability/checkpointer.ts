// Starts and stops the checkpointer's thread (checkpointer-thread.ts) for one database file.
import { Worker } from "node:worker_threads";

/** What the thread says: it stopped when asked, or it stopped on an error other than a busy file. */
export type CheckpointerMessage = "stopped" | { failed: string };

export class Checkpointer {
  readonly #worker: Worker;
  readonly #stopped: Promise<void>;

  /** `failed` is called once if the thread stops on its own. */
  constructor(path: string, failed: (message: string) => void) {
    this.#worker = new Worker(new URL("./checkpointer-thread.ts", import.meta.url), { workerData: path });
    this.#stopped = new Promise((resolve) => {
      this.#worker.on("message", (message: CheckpointerMessage) => {
        if (message === "stopped") resolve();
        else failed(message.failed);
      });
      this.#worker.on("error", (error) => failed(error.message));
      this.#worker.on("exit", () => resolve());
    });
    // Never the reason a process stays alive: closing the database stops it, and so does exiting.
    this.#worker.unref();
  }

  /**
   * Lets a checkpoint in progress finish, closes the thread's connection, and ends the thread. The thread
   * keeps the process alive while it stops: otherwise a process with nothing else to wait for would
   * end here, before the database is closed and before whatever its caller does next.
   */
  async stop(): Promise<void> {
    this.#worker.ref();
    this.#worker.postMessage("stop");
    await this.#stopped;
    await this.#worker.terminate();
  }
}
