// How PostgreSQL's rows of the world arrive: BIGINT columns as decimal strings (an id is then already the
// model's string, exact past 2^53) and flags as booleans. The mapping back to the
// model's objects is the one every adapter shares (@social/store-common), so both answer byte for byte alike.
import type { TweetRowOf } from "@social/store-common";

export type TweetRow = TweetRowOf<string, boolean>;
export type { CommunityRow } from "@social/store-common";

/** Folds ASCII letters only, as SQLite's NOCASE collation does: the key of a case-insensitive username. */
export function asciiFold(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/**
 * The condition on every tweet read (the tweets table aliased `t`): a protected account's tweets are
 * for its followers, and this API reads as an app that follows nobody. A protected tweet is then
 * missing everywhere, a lookup by its id included.
 */
export const VISIBLE = "NOT t.author_protected";
