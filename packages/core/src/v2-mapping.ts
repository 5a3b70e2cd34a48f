// What an entry's X API v2 form adds to its /v1 read. Paths, path parameters, page sizes and costs stay
// the entry's; a mapping only says what the /2 shape needs that /v1 does not know (X API v2's own
// names and bounds), next to the entry it belongs to.
import type { CountBucket, Tweet, User } from "./model.ts";

export interface MaxResults {
  min: number;
  max: number;
  fallback: number;
  /**
   * The /v1 parameter max_results becomes (search's `limit`); without it max_results sets the page
   * size directly, so pages hold what the /2 client asked for while the cost rule stays /v1's.
   */
  v1Param?: string;
}

interface V2Options {
  /** OpenAPI-style /2 path, as SPEC.md's mapping names it. */
  path: string;
  /** Set on paginated reads. */
  maxResults?: MaxResults;
  /** /v1 parameters the /2 form always sends (followers and following read profiles). */
  fixed?: Readonly<Record<string, string>>;
  /** Whether meta reports newest_id and oldest_id (tweet timelines; X leaves them out elsewhere). */
  idRange?: boolean;
  /** /v1 query parameters passed through under the same name. */
  passThrough?: readonly string[];
}

/** What `data` holds in X API v2's terms, and the items of the /v1 read's data `D` in that form. */
export type V2Resource<D> =
  | { resource: "tweet"; items: (data: D) => readonly Tweet[] }
  | { resource: "user"; items: (data: D) => readonly User[] }
  /** Tweet counts: `data` is the buckets, meta their total. */
  | { resource: "count"; items: (data: D) => readonly CountBucket[] };

export type V2Mapping<D = unknown> = V2Options & V2Resource<D>;
