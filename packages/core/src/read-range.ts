// Incremental reads: since_id, until_id, start_time and end_time, as X API v2 and every polling collector
// send them, on search and the user timelines. They bound which tweets a read may return, beside its
// keyset page: a collector asks for what is newer than the last id it saw and pages through that.
import * as v from "valibot";
import { idParam, paramsIssueMessage } from "./params.ts";
import type { ReadRange } from "./ports.ts";
import type { SearchNode } from "./search/ast.ts";

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$/;
const TIMESTAMP_RULE = "must be an RFC 3339 timestamp such as 2026-11-20T08:00:00Z";

/**
 * The epoch ms of a timestamp the pattern matched, or NaN when its date or time does not exist: Date
 * rolls 2026-02-30 over into March, so the fields must come back as given.
 */
function timestampMs(text: string): number {
  const [, year, month, day, hour, minute, second, fraction = "", zone = "Z"] = TIMESTAMP.exec(text) ?? [];
  const fields = [year, month, day, hour, minute, second].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [y, mo, d, h, mi, s] = fields;
  const local = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  const exists =
    local.getUTCFullYear() === y &&
    local.getUTCMonth() === mo - 1 &&
    local.getUTCDate() === d &&
    local.getUTCHours() === h;
  const [sign, offsetHours, offsetMinutes] =
    zone === "Z" ? ["+", 0, 0] : [zone[0], Number(zone.slice(1, 3)), Number(zone.slice(4))];
  if (!exists || mi > 59 || s > 59 || offsetHours > 23 || offsetMinutes > 59) return Number.NaN;
  const offsetMs = (sign === "-" ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  return local.getTime() + Math.round(Number(fraction || "0") * 1000) - offsetMs;
}

/**
 * A timestamp as X API v2 and its clients send it (RFC 3339: Z or an offset, such as twarc2's +00:00),
 * as epoch ms. The description comes before the first transformation, where JSON Schema stops.
 */
function timestampParam(description: string) {
  return v.optional(
    v.pipe(
      v.string(TIMESTAMP_RULE),
      v.description(description),
      v.regex(TIMESTAMP, TIMESTAMP_RULE),
      v.transform(timestampMs),
      v.check((ms) => !Number.isNaN(ms), TIMESTAMP_RULE),
    ),
  );
}

export const READ_RANGE_PARAMS = {
  since_id: v.optional(v.pipe(idParam, v.description("Newer than this id"))),
  until_id: v.optional(v.pipe(idParam, v.description("Older than this id"))),
  start_time: timestampParam("From this UTC time on"),
  end_time: timestampParam("Before this UTC time"),
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
