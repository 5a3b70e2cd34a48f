// Incremental reads: since_id, until_id, start_time and end_time, as X API v2 and every polling collector
// send them, on search and the user timelines. They bound which tweets a read may return, beside its
// keyset page: a collector asks for what is newer than the last id it saw and pages through that.
import * as v from "valibot";
import { idParam, paramsIssueMessage, sinceIdBound, untilIdBound } from "./params.ts";
import type { ReadRange } from "./ports/store.ts";
import type { SearchNode } from "./search/ast.ts";

// RFC 3339's date-time: T and Z in either case, any fraction of a second (Python's isoformat writes
// microseconds; the time is kept to the millisecond), Z or an offset.
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/;
const TIMESTAMP_RULE = "must be an RFC 3339 timestamp such as 2026-11-20T08:00:00Z";

/**
 * The epoch ms of a timestamp the pattern matched, or NaN when its date or time does not exist: Date
 * rolls 2026-02-30 over into March, so the fields must come back as given.
 */
function timestampMs(text: string): number {
  const [, ...parts] = TIMESTAMP.exec(text) ?? [];
  const [year, month, day, hour, minute, second] = parts.slice(0, 6).map(Number) as number[] as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [fraction = "", zone = "Z"] = parts.slice(6);
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, takes years 0 to 99 as they are.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, Number(fraction.slice(0, 3).padEnd(3, "0")));
  const exists =
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    minute <= 59 &&
    second <= 59;
  const offset = /^[+-]/.test(zone)
    ? { sign: zone[0], hours: Number(zone.slice(1, 3)), minutes: Number(zone.slice(4)) }
    : undefined;
  if (!exists || (offset !== undefined && (offset.hours > 23 || offset.minutes > 59))) return Number.NaN;
  const offsetMs =
    offset === undefined ? 0 : (offset.sign === "-" ? -1 : 1) * (offset.hours * 60 + offset.minutes) * 60_000;
  return date.getTime() - offsetMs;
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

/**
 * An entry's parameters with the read range's, the rule between start_time and end_time, and the
 * entry's own rules between its parameters (`checks`, each said on the parameter it names).
 */
export function withReadRange<const E extends v.ObjectEntries>(
  entries: E,
  ...checks: v.GenericPipeAction<v.InferOutput<v.StrictObjectSchema<E & typeof READ_RANGE_PARAMS, undefined>>>[]
) {
  const object = v.strictObject({ ...entries, ...READ_RANGE_PARAMS }, paramsIssueMessage);
  // The rule reads only start_time and end_time, which every such object has.
  return v.pipe(object, endAfterStart as unknown as v.GenericPipeAction<v.InferOutput<typeof object>>, ...checks);
}

/** The read range's parameters as an entry's validated parameters hold them. */
export interface ReadRangeParams {
  since_id?: string | undefined;
  until_id?: string | undefined;
  start_time?: number | undefined;
  end_time?: number | undefined;
}

/** The read range the parameters name, if they name one. */
export function readRangeOf(params: ReadRangeParams): ReadRange | undefined {
  const range: ReadRange = {
    ...(params.since_id === undefined ? {} : { sinceId: sinceIdBound(params.since_id) }),
    ...(params.until_id === undefined ? {} : { untilId: untilIdBound(params.until_id) }),
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
