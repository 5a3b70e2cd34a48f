// Recent search: the rows of the compiled search plan (../search) as a page of tweets, and its counts.
import type { Database } from "bun:sqlite";
import type { CountWindow, Page, PageRequest, SearchLimits, SearchNode, SearchSortOrder, Tweet } from "@social/core";
import { searchCursor, tweetFromRow } from "@social/store-common";
import { SearchExecutor } from "../search/execute.ts";
import { pageOf } from "./reads.ts";

export class TweetSearch {
  readonly #executor: SearchExecutor;

  constructor(db: Database, limits: SearchLimits) {
    this.#executor = new SearchExecutor(db, limits);
  }

  async page(query: SearchNode, sortOrder: SearchSortOrder, page: PageRequest): Promise<Page<Tweet>> {
    const rows = await this.#executor.rows(query, sortOrder, page.size + 1, page.after, page.owner ?? "");
    return pageOf(rows, page.size, tweetFromRow, (row) => searchCursor(sortOrder, row));
  }

  count(query: SearchNode, window: CountWindow, owner: string): Promise<number[]> {
    return this.#executor.count(query, window, owner);
  }
}
