// How SQLite's rows of the world arrive: ids, timestamps and flags as INTEGER numbers. The mapping back
// to the model's objects is the one every adapter shares (@social/store-kit).
import type { CommunityRowOf, TweetRowOf } from "@social/store-kit";

export type TweetRow = TweetRowOf<number, number>;
export type CommunityRow = CommunityRowOf<number>;

/**
 * The condition on every tweet read (the tweets table aliased `t`): a protected account's tweets are
 * for its followers, and this API reads as an app that follows nobody. A protected tweet is then
 * missing everywhere, a lookup by its id included.
 */
export const VISIBLE = "t.author_protected = 0";
