// Reading a search's matches hour by hour from the newest down (./hours.ts names the hours), for a
// recency page after its walk and for relevancy's candidates (./execute.ts).
import type { IdRange } from "@social/store-common";
import { type Condition, withTimeFiltered } from "./compile.ts";
import { withinHours } from "./hours.ts";
import type { Read, Reading } from "./reads.ts";
import type { SearchSteps } from "./transaction.ts";
import type { HourSpan } from "./world-range.ts";

/** Steps by hours; the last reads every hour left. */
const HOUR_STEPS = 4;
/** How much more than the matches' rate so far says is needed a step covers, so that one usually does. */
const STEP_MARGIN = 1.5;
/** The share of tweets a step without a rate to go by takes to match. */
const FIRST_GUESS = 0.25;

/** How far a search has read: the matches found among the newest `tweets` of its range. */
export interface Progress {
  found: number;
  tweets: number;
}

/**
 * Up to `wanted` matches of `condition` in `range`, newest first, read hour by hour from `hours.newest`
 * down (see the top of ./execute.ts), `progress` being what was found before; each step under
 * `settings` (./plan-settings.ts).
 */
export async function readByHours<R>(
  steps: SearchSteps,
  read: Read<R>,
  settings: string,
  condition: Condition,
  range: IdRange,
  hours: HourSpan,
  wanted: number,
  progress: Progress,
): Promise<Reading<R>> {
  const rows: R[] = [];
  let { found, tweets } = progress;
  let { high } = range;
  let newest = hours.newest;
  for (let step = 1; found < wanted && newest >= hours.oldest; step++) {
    const rate = tweets === 0 ? FIRST_GUESS : Math.max(found, 0.5) / tweets;
    const stepHours = Math.ceil(((wanted - found) / rate / hours.tweetsPerHour) * STEP_MARGIN);
    const planned = step === HOUR_STEPS ? hours.oldest : Math.max(hours.oldest, newest - stepHours + 1);
    // A step through most of the world's hours reads every hour left and names none: the index then
    // lists the matches of the hours outside too (left out by their ids, or read sooner than needed),
    // which mostly costs less than going through the spans' postings, nearly as many as the world's
    // tweets when the spans cover most of it.
    const everyHour = (newest - planned + 1) * 2 > hours.worldLast - hours.worldFirst + 1;
    const oldest = everyHour ? hours.oldest : planned;
    const window = everyHour ? withTimeFiltered(condition) : withinHours(condition, oldest, newest);
    const reading = await steps.run(settings, read(window, { low: range.low, high }, wanted - found));
    rows.push(...reading.rows);
    found += reading.found;
    // Every match of the hours read is found (or the search is done), so the rest lie below the lowest.
    high = reading.lowest ?? high;
    tweets += (newest - oldest + 1) * hours.tweetsPerHour;
    newest = oldest - 1;
  }
  return { rows, found };
}
