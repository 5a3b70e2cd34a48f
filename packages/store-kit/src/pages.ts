// Every paginated read is a keyset walk of one index: the cursor holds the sort key of the last row
// returned, and each page asks for one row more than it returns to learn whether another page exists.
import { type Cursor, invalidPageToken, type Page } from "@social/core";

/** Above every id and timestamp: the keyset start of a newest-first walk. */
export const CEILING = 2 ** 53;

/** The page of the first `size` rows, with a cursor when the query returned one more. */
export function pageOf<R, T>(rows: R[], size: number, item: (row: R) => T, cursor: (row: R) => Cursor): Page<T> {
  const items = rows.slice(0, size);
  const last = items.at(-1);
  return rows.length > size && last !== undefined
    ? { items: items.map(item), next: cursor(last) }
    : { items: items.map(item) };
}

/** Whether a cursor that arrived fits the keyset start `start`: each database compares key types its own way. */
export type KeyCheck = (after: Cursor, start: readonly number[]) => boolean;

/**
 * The keyset position to continue after, for a database that accepts the keys `isKey` accepts: `after`
 * checked to be `start`'s shape, or `start` itself; any other cursor is a page token no store issued.
 */
export function keysetChecking(isKey: KeyCheck) {
  return <Start extends [number] | [number, number]>(after: Cursor | undefined, start: Start): Start => {
    if (after === undefined) return start;
    if (!isKey(after, start)) throw invalidPageToken();
    return after as Start;
  };
}
