// A progress bar on stderr. Written with writeSync because the work it reports (buildWorld, imports) holds the
// event loop until it is done on SQLite, so buffered writes would all appear at the end there.
import { writeSync } from "node:fs";

const WIDTH = 30;
const STDERR = 2;

export interface ProgressBar {
  /** `detail` replaces the done/total counts after the percentage. */
  update(done: number, total: number, options?: { detail?: string }): void;
  finish(): void;
}

export function progressBar(label: string): ProgressBar {
  const interactive = process.stderr.isTTY === true;
  let shown = -1;
  return {
    update(done, total, options = {}) {
      const percent = total > 0 ? Math.min(100, Math.floor((done / total) * 100)) : 100;
      // On a terminal redraw at each percent; in a log file keep one line per ten percent.
      const step = interactive ? percent : percent - (percent % 10);
      if (step === shown) return;
      shown = step;
      const filled = Math.round((percent / 100) * WIDTH);
      const bar = `${"█".repeat(filled)}${"░".repeat(WIDTH - filled)}`;
      const detail = options.detail ?? `${done.toLocaleString("en-US")}/${total.toLocaleString("en-US")}`;
      const line = `${label} ${bar} ${String(percent).padStart(3)}%  ${detail}`;
      writeSync(STDERR, interactive ? `\r${line}` : `${line}\n`);
    },
    finish() {
      if (interactive && shown >= 0) writeSync(STDERR, "\n");
    },
  };
}
