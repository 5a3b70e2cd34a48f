// Where a search page continues: recency pages after [id], relevancy pages after [bucket, id] (a ranked
// row's score bucket; unranked rows are all in bucket 0). Both adapters issue and read these cursors
// alike, so a store's next_token means the same on either.
import type { Cursor, SearchSortOrder } from "@social/core";
import { idKey, KEY_TOP, keysetAfter } from "./ids.ts";

export interface SearchPosition {
  bucket: number;
  /** An id, exact: a bigint past 2^53. */
  id: number | bigint;
}

/** The keyset position to continue after; the first page starts above every row. */
export function searchPosition(sortOrder: SearchSortOrder, after: Cursor | undefined): SearchPosition {
  if (sortOrder === "recency") {
    const [id] = keysetAfter<[number | bigint]>(after, ["id"]);
    return { bucket: 0, id };
  }
  const [bucket, id] = keysetAfter<[number, number | bigint]>(
    after,
    ["int", "id"],
    [-(KEY_TOP.int as number), KEY_TOP.id],
  );
  return { bucket, id };
}

/** The cursor of a page that ends with `row` (its id as the database returned it). */
export function searchCursor(sortOrder: SearchSortOrder, row: { bucket: number; id: string | number }): Cursor {
  return sortOrder === "recency" ? [idKey(row.id)] : [row.bucket, idKey(row.id)];
}
