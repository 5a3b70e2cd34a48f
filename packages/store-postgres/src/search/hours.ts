// Every tweet's search_vector holds the hour it was created in as lexemes, one per span of hours it falls
// in: `time1h:<n>`, `time4h:<n>`, … `time256h:<n>` (n counts the spans since 1970; ./lexemes.ts). GIN
// keeps no order, so without them the newest matches of a query are found either by walking the newest
// tweets, which costs every tweet walked, or by gathering every match through the index, which costs
// reading every match's row (tens of milliseconds for a query in 3% of a million tweets) to find the
// newest few.
//
// ANDed with the lexemes of the spans that cover some hours, a query reads only those hours' matches.
// The index itself goes through the postings of whichever of the query's lexemes and the spans' are
// fewer: spans shorter than the query's postings cost their tweets (about 0.15 µs each), longer ones
// cost the query's own postings. When ids follow time, the spans from the newest down are the newest
// matches in order.
import { askingAlso, type Condition, withTimeFiltered } from "./compile.ts";

const HOUR_MS = 3_600_000;

/** The spans, in hours: each four times the last, so a window of hours is covered by a few of one size. */
const TIME_SPANS = [1, 4, 16, 64, 256] as const;

export const hourOf = (ms: number): number => Math.floor(ms / HOUR_MS);

/** The lexeme of the span of `hours` hours that holds `hour`. */
const spanLexeme = (hours: number, hour: number): string => `'time${hours}h:${Math.floor(hour / hours)}'`;

/** Every span lexeme of a tweet created in `hour`. */
export const timeLexemes = (hour: number): string[] => TIME_SPANS.map((hours) => spanLexeme(hours, hour));

/**
 * Whether the index narrows `condition` down by its words alone (a narrow tsquery, alone or ANDed with
 * the rest), which is what reading by hours relies on: a condition that only B-trees narrow (a count, a
 * time) would have every tweet of the hours read to test it.
 */
export function readableByHours(condition: Condition): boolean {
  const narrowMatch = (part: Condition) => part.kind === "match" && part.narrow;
  return narrowMatch(condition) || (condition.kind === "and" && condition.children.some(narrowMatch));
}

/**
 * `condition` among the tweets of the hours [oldest, newest], named exactly by spans from `newest` down,
 * each the longest that ends where the hours above it begin and fits in the hours left: the hours above,
 * which earlier steps read, are not read again, and the spans are few (each costs the index about the
 * driving word's postings again; reaching further back to name fewer measured slower, as it reads more
 * rows).
 */
export function withinHours(condition: Condition, oldest: number, newest: number): Condition {
  const spans: string[] = [];
  for (let top = newest + 1; top > oldest; ) {
    const size = TIME_SPANS.findLast((hours) => top % hours === 0 && hours <= top - oldest) ?? 1;
    top -= size;
    spans.push(spanLexeme(size, top));
  }
  return askingAlso(withTimeFiltered(condition), spans.join(" | "));
}
