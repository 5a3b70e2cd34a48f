// How SQLite's rows of the world arrive: timestamps and flags as INTEGER numbers, ids as text (they are
// read with CAST, see @social/store-kit ids.ts). The mapping back to the model's objects is the one
// every adapter shares (@social/store-kit).
import type { TweetRowOf } from "@social/store-kit";

export type TweetRow = TweetRowOf<number, number>;
export type { CommunityRow } from "@social/store-kit";

/**
 * The condition on every tweet read (the tweets table aliased `t`): a protected account's tweets are
 * for its followers, and this API reads as an app that follows nobody. A protected tweet is then
 * missing everywhere, a lookup by its id included.
 */
export const VISIBLE = "t.author_protected = 0";
