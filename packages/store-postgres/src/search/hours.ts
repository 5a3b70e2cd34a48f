// Every tweet's search_vector holds the hour it was created in as lexemes, one per span of hours it falls
// in: `time1h:<n>`, `time4h:<n>`, … `time256h:<n>` (n counts the spans since 1970; ./lexemes.ts). GIN
// keeps no order, so without them the newest matches of a query are found either by walking the newest
// tweets, which costs every tweet walked, or by gathering every match through the index, which costs
// reading every match's row to find the newest few.
//
// ANDed with the lexemes of the spans that cover some hours, a query reads only those hours' matches.
// The spans are asked of the index as a tsquery of their own, beside the query's: GIN intersects the
// two by leaping from one's next posting to the other's, decoding only the pages of postings it lands
// on. Merged into the query's tsquery they cost every posting of the spans instead: within one tsquery
// GIN goes through all the postings of the side of an AND whose lexemes are rarer, and each span is
// rarer than a common word. Spans over most of the world still cost about all their postings
// (./by-hours.ts names none then). When ids follow time, the spans from the newest down are the newest
// matches in order.
import { COMMON, type Condition, type Match, withTimeFiltered } from "./compile.ts";

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
  return narrowMatch(condition) || (condition.kind === "and" && condition.children.some(narrowMatch));
}

const narrowMatch = (condition: Condition): condition is Match => condition.kind === "match" && condition.narrow;

/** An OR of which the index narrows every arm: by a tsquery, or by a count's B-tree. */
function narrowedOr(condition: Condition): boolean {
  const countBound = (arm: Condition) =>
    arm.kind === "compare" && (arm.column === "like_count" || arm.column === "retweet_count");
  return condition.kind === "or" && condition.children.every((arm) => readableByHours(arm) || countBound(arm));
}

/**
 * `spans` ANDed where they narrow `condition` most: beside its narrow tsquery, or, when that tsquery is
 * common (./compile.ts) and an OR beside it is narrowed by the index in every arm, in each arm of the OR.
 * The planner then gathers each arm through its own index and the spans (a BitmapOr): `(plus OR
 * min_faves:20) lang:en` over two hours reads every English tweet of those hours with the spans beside
 * `lang:en`, and only the arms' few matches with the spans in the arms. Beside a rarer tsquery
 * (`lang:pt`) the arms read more than it: to narrow the arm of a count down, the planner reads every
 * posting of the spans and `lang:pt`. The planner takes a clause that every arm holds out of the OR, so
 * the arms after the first hold the spans as a synonym (@@@).
 */
function narrowedBy(condition: Condition, spans: Match): Condition {
  if (condition.kind === "or") {
    const [first, ...others] = condition.children;
    // Flipped rather than set, so that an OR within an arm that holds the synonym differs in its arms too.
    const { synonym: held, ...plain } = spans;
    const synonym: Match = held ? plain : { ...plain, synonym: true };
    return {
      kind: "or",
      children: [narrowedBy(first as Condition, spans), ...others.map((arm) => narrowedBy(arm, synonym))],
    };
  }
  const onlyCommon = (and: readonly Condition[]) =>
    and.filter(narrowMatch).every((match) => match.frequency !== undefined && match.frequency >= COMMON);
  const or = condition.kind === "and" && onlyCommon(condition.children) ? condition.children.findIndex(narrowedOr) : -1;
  if (condition.kind !== "and" || or < 0) return { kind: "and", children: [condition, spans] };
  return {
    kind: "and",
    children: condition.children.map((child, index) => (index === or ? narrowedBy(child, spans) : child)),
  };
}

/**
 * `condition` among the tweets of the hours [oldest, newest], named exactly by spans from `newest` down,
 * each the longest that ends where the hours above it begin and fits in the hours left: the hours above,
 * which earlier steps read, are not read again, and the spans are few (the index skips through each
 * span's postings for every match it finds, so every span named adds to the cost of each match).
 */
export function withinHours(condition: Condition, oldest: number, newest: number): Condition {
  const spans: string[] = [];
  for (let top = newest + 1; top > oldest; ) {
    const size = TIME_SPANS.findLast((hours) => top % hours === 0 && hours <= top - oldest) ?? 1;
    top -= size;
    spans.push(spanLexeme(size, top));
  }
  return narrowedBy(withTimeFiltered(condition), { kind: "match", query: spans.join(" | "), narrow: true });
}
