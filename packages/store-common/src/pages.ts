// Every paginated read is a keyset walk of one index: the cursor holds the sort key of the last row
// returned, and each page asks for one row more than it returns to learn whether another page exists.
import type { Cursor, Page } from "@social/core";

/** Above every timestamp: where a walk down times starts (ids start at KEY_TOP.id, ./ids.ts). */
export const CEILING = 2 ** 53;

/** The page of the first `size` rows, with a cursor when the query returned one more. */
export function pageOf<R, T>(rows: R[], size: number, item: (row: R) => T, cursor: (row: R) => Cursor): Page<T> {
  const items = rows.slice(0, size);
  const last = items.at(-1);
  return rows.length > size && last !== undefined
    ? { items: items.map(item), next: cursor(last) }
    : { items: items.map(item) };
}
