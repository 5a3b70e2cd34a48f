// Incremental reads: since_id, until_id, start_time and end_time, as X API v2 and every polling collector
// send them, on search and the user timelines. They bound which tweets a read may return, beside its
// keyset page: a collector asks for what is newer than the last id it saw and pages through that.
import * as v from "valibot";
import { idParam, paramsIssueMessage } from "./params.ts";
import type { ReadRange } from "./ports.ts";
import type { SearchNode } from "./search/ast.ts";

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;
const TIMESTAMP_RULE = "must be a UTC timestamp such as 2026-11-20T08:00:00Z";

/**
 * A timestamp as X API v2 takes it (YYYY-MM-DDTHH:mm:ss[.sss]Z), as epoch ms. The calendar is checked
 * after the pattern: Date.parse rolls 2026-02-30 over into March, so a date that does not print back as
 * given is no date. The description comes before the first transformation, where JSON Schema stops.
 */
function timestampParam(description: string) {
  return v.optional(
    v.pipe(
      v.string(TIMESTAMP_RULE),
      v.description(description),
      v.regex(TIMESTAMP, TIMESTAMP_RULE),
      v.transform((text) => ({ text, ms: Date.parse(text) })),
      v.check(
        ({ text, ms }) => !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 19) === text.slice(0, 19),
        TIMESTAMP_RULE,
      ),
      v.transform(({ ms }) => ms),
    ),
  );
}

export const READ_RANGE_PARAMS = {
  since_id: v.optional(v.pipe(idParam, v.description("Only tweets newer than this id"))),
  until_id: v.optional(v.pipe(idParam, v.description("Only tweets older than this id"))),
  start_time: timestampParam("Only tweets from this instant on"),
  end_time: timestampParam("Only tweets before this instant"),
};

type Times = { start_time?: number | undefined; end_time?: number | undefined };

/** end_time after start_time, said on end_time: a rule between two parameters, for any entry that has both. */
const endAfterStart = v.forward(
  v.partialCheck(
    [["start_time"], ["end_time"]],
    (params: Times) =>
      params.start_time === undefined || params.end_time === undefined || params.start_time < params.end_time,
    "must be after start_time",
  ),
  ["end_time"],
);

/** An entry's parameters with the read range's, and the rule between start_time and end_time. */
export function withReadRange<const E extends v.ObjectEntries>(entries: E) {
  const object = v.strictObject({ ...entries, ...READ_RANGE_PARAMS }, paramsIssueMessage);
  // The rule reads only start_time and end_time, which every such object has.
  return v.pipe(object, endAfterStart as unknown as v.GenericPipeAction<v.InferOutput<typeof object>>);
}

/** The read range the parameters name, if they name one. */
export function readRangeOf(params: {
  since_id?: string | undefined;
  until_id?: string | undefined;
  start_time?: number | undefined;
  end_time?: number | undefined;
}): ReadRange | undefined {
  const range: ReadRange = {
    ...(params.since_id === undefined ? {} : { sinceId: params.since_id }),
    ...(params.until_id === undefined ? {} : { untilId: params.until_id }),
    ...(params.start_time === undefined ? {} : { startMs: params.start_time }),
    ...(params.end_time === undefined ? {} : { endMs: params.end_time }),
  };
  return Object.keys(range).length > 0 ? range : undefined;
}

/** A search's query confined to the range, as the search language says it: since_id:, since: and so on. */
export function searchWithin(query: SearchNode, range: ReadRange | undefined): SearchNode {
  if (range === undefined) return query;
  const bounds: SearchNode[] = [
    ...(range.sinceId === undefined ? [] : [{ kind: "since_id" as const, id: range.sinceId }]),
    ...(range.untilId === undefined ? [] : [{ kind: "until_id" as const, id: range.untilId }]),
    ...(range.startMs === undefined ? [] : [{ kind: "since" as const, date: new Date(range.startMs).toISOString() }]),
    ...(range.endMs === undefined ? [] : [{ kind: "until" as const, date: new Date(range.endMs).toISOString() }]),
  ];
  const children = query.kind === "and" ? query.children : [query];
  return { kind: "and", children: [...children, ...bounds] };
}
