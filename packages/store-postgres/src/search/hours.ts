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

interface HourWindow {
  /** The condition among the tweets of the spans that cover [oldest, newest] and end where `newest` does. */
  condition: Condition;
  /** The first hour of the oldest span. */
  oldest: number;
}

/**
 * How much longer than the hours still to cover a span may be: each span the tsquery names costs the
 * index about as much as reading a few hours' more matches, so a step may reach further back to name
 * fewer.
 */
const SPAN_SLACK = 1;

/**
 * `condition` among the tweets of the hours [oldest, newest], named by spans from `newest` down, each the
 * longest that ends where the hours above it begin and is at most SPAN_SLACK times the hours left: the
 * hours above `newest`, which earlier steps read, are never read again, and the last span may reach past
 * `oldest`.
 */
export function withinHours(condition: Condition, oldest: number, newest: number): HourWindow {
  const spans: string[] = [];
  let top = newest + 1;
  while (top > oldest) {
    const left = top - oldest;
    const size = TIME_SPANS.findLast((hours) => top % hours === 0 && hours <= left * SPAN_SLACK) ?? 1;
    top -= size;
    spans.push(spanLexeme(size, top));
  }
  return { condition: askingAlso(withTimeFiltered(condition), spans.join(" | ")), oldest: top };
}
