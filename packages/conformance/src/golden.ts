// Committed answers of a store's reads on the default world (test/snapshots/store/), the reference of the
// reads no model covers: a store's answers, its cursors and its errors must be these, to the byte. Each
// read is one line, named by what it asked: a short answer in full, a long one (a page walk, a list of
// tweets) by its item count and a digest, so that review shows which reads changed. `npm run snapshots`
// rewrites them from the embedded adapter's answers; each adapter is then checked against them alone.
import { expect } from "bun:test";
import { join } from "node:path";
import type { Cursor, Page } from "@social/core";
import { snapshotDifference } from "@social/testing";

const SNAPSHOTS = join(import.meta.dir, "../test/snapshots/store");

/** An answer this long or shorter is kept in full. */
const IN_FULL = 240;

/** What a read gave: its value, or the error it failed with, as text. */
async function outcome(read: () => Promise<unknown>): Promise<{ text: string; value?: unknown }> {
  try {
    const value = await read();
    return { text: JSON.stringify({ value }), value };
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    return {
      text: JSON.stringify({ error: error.name, message: error.message, code: (error as { code?: unknown }).code }),
    };
  }
}

function digest(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex").slice(0, 20);
}

function itemCount(value: unknown): number | undefined {
  if (Array.isArray(value)) return value.length;
  const items = (value as { items?: unknown } | undefined)?.items;
  return Array.isArray(items) ? items.length : undefined;
}

/** The answers one test's reads gave, compared with (or, with UPDATE_SNAPSHOTS=1, written to) its snapshot. */
export class Answers {
  readonly #lines = new Map<string, string>();

  constructor(readonly name: string) {}

  /** Records what `read` gives under `label`, and returns its value (undefined when it failed). */
  async read<T>(label: string, read: () => Promise<T>): Promise<T | undefined> {
    const { text, value } = await outcome(read);
    const items = itemCount(value);
    this.#record(label, text.length <= IN_FULL ? text : JSON.stringify({ items, sha256: digest(text) }));
    return value as T | undefined;
  }

  /**
   * Walks a paginated read to its end (or `maxPages`), each page asked with the cursor of the one before,
   * and records the walk under `label`; returns how many items it read.
   */
  async walk<T>(
    label: string,
    read: (after: Cursor | undefined) => Promise<Page<T> | undefined>,
    maxPages = 200,
  ): Promise<number> {
    const pages: string[] = [];
    let after: Cursor | undefined;
    let items = 0;
    for (let count = 0; count < maxPages; count++) {
      const { text, value } = await outcome(() => read(after));
      pages.push(text);
      const page = value as Page<T> | undefined;
      if (page === undefined) break;
      items += page.items.length;
      if (page.next === undefined) break;
      after = page.next;
    }
    const [first] = pages;
    const whole = pages.length === 1 && first !== undefined && first.length <= IN_FULL;
    this.#record(
      label,
      whole ? first : JSON.stringify({ pages: pages.length, items, sha256: digest(pages.join("\n")) }),
    );
    return items;
  }

  /** Expects the recorded answers to be the committed ones. */
  expectCommitted(): void {
    const lines = [...this.#lines].map(([label, answer]) => `  ${JSON.stringify(label)}: ${answer}`);
    const text = `{\n${lines.join(",\n")}\n}\n`;
    expect(snapshotDifference(join(SNAPSHOTS, `${this.name}.json`), text)).toBeUndefined();
  }

  #record(label: string, answer: string): void {
    const before = this.#lines.get(label);
    if (before !== undefined && before !== answer) throw new Error(`${label} answered twice, differently`);
    this.#lines.set(label, answer);
  }
}
