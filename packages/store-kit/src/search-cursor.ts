// Where a search page continues: recency pages after [id], relevancy pages after [bucket, id] (a ranked
// row's score bucket; unranked rows are all in bucket 0). Both adapters issue and read these cursors
// alike, so a store's next_token means the same on either.
import { type Cursor, invalidPageToken, type SearchSortOrder } from "@social/core";
import { CEILING } from "./pages.ts";

export interface SearchPosition {
  bucket: number;
  id: number;
}

/** The keyset position to continue after; the first page starts above every row. */
export function searchPosition(sortOrder: SearchSortOrder, after: Cursor | undefined): SearchPosition {
  if (after === undefined) return { bucket: -CEILING, id: CEILING };
  const expected = sortOrder === "recency" ? 1 : 2;
  if (after.length !== expected || !after.every((value) => Number.isSafeInteger(value))) throw invalidPageToken();
  const [first, second] = after as number[];
  return sortOrder === "recency"
    ? { bucket: 0, id: first as number }
    : { bucket: first as number, id: second as number };
}

/** The cursor of a page that ends with `row`. */
export function searchCursor(sortOrder: SearchSortOrder, row: SearchPosition): Cursor {
  return sortOrder === "recency" ? [row.id] : [row.bucket, row.id];
}
