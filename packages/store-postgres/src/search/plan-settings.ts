// The settings each step of a search runs under (./execute.ts picks one per step). Each is made the
// only plan the planner may pick: its guesses of how common words are together are what the steps are
// there to not depend on (a phrase of common words is guessed at one tweet, and gathering its thousands
// through the index then costs more than the walk). Each step also gets what is left of the search's
// budget ($1, in ms) as its statement timeout, a plan made for its own values (why: ./execute.ts;
// RANK_BY_HOURS keeps one), and no parallel workers, which take milliseconds to start and the
// connections of other requests' statements: one search is one backend. A page read at random is priced
// as one read in order (random_page_cost 1.1, the usual setting for a database held in memory, as
// docs/operations.md asks of its shared_buffers): at the default 4 the planner builds a bitmap of a
// count's B-tree, a few hundred thousand entries for `min_retweets:1`, to save reading a few hundred
// rows.
const set = (settings: Record<string, "on" | "off">, plans: "custom" | "generic" = "custom") =>
  `SELECT set_config('statement_timeout', $1, true), set_config('plan_cache_mode', 'force_${plans}_plan', true),
   set_config('max_parallel_workers_per_gather', '0', true), set_config('random_page_cost', '1.1', true),
   ${Object.entries(settings)
     .map(([name, value]) => `set_config('${name}', '${value}', true)`)
     .join(", ")}`;
/** Along the primary key, newest first. */
export const WALK = set({ enable_bitmapscan: "off", enable_seqscan: "off" });
/** Through the indexes that narrow the condition down (GIN, the counts' and time's B-trees). */
export const GATHER_THROUGH_INDEX = set({ enable_bitmapscan: "on", enable_seqscan: "on", enable_indexscan: "off" });
/** Through the GIN index, which the hours narrow down (and the B-trees, where they narrow more). */
const BY_HOURS = { enable_bitmapscan: "on", enable_seqscan: "off", enable_indexscan: "off" } as const;
export const GATHER_BY_HOURS = set(BY_HOURS);
/**
 * Ranking candidates by hours: the GIN index is the one path left (the ids are tested on the rows, see
 * readRanked in ./reads.ts), so the plan is the same whatever the values, and each connection keeps one:
 * planned anew, every step would pay again for a plan that cannot come out different.
 */
export const RANK_BY_HOURS = set(BY_HOURS, "generic");
/** The planner's own choice, for a condition no index narrows down. */
export const PLANNERS_CHOICE = set({ enable_bitmapscan: "on", enable_seqscan: "on" });
