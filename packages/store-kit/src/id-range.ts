// Read ranges (since_id, until_id, start_time, end_time) as every adapter bounds its statements with.
import type { ReadRange } from "@social/core";

/**
 * `range` ([low, high), in numbers) narrowed to the ids strictly between `sinceId` and `untilId`. An id
 * past 2^53 narrows nothing (a double may round past the bound): the statement's own comparison, made
 * on the exact id, keeps the answer right, and only the walk is longer.
 */
export function withinIds(
  range: { low: number; high: number },
  bounds: { sinceId?: bigint; untilId?: bigint },
): { low: number; high: number } {
  const exact = (id: bigint | undefined): id is bigint => id !== undefined && id <= BigInt(Number.MAX_SAFE_INTEGER);
  return {
    low: exact(bounds.sinceId) ? Math.max(range.low, Number(bounds.sinceId) + 1) : range.low,
    high: exact(bounds.untilId) ? Math.min(range.high, Number(bounds.untilId)) : range.high,
  };
}

/** A read range with every bound given: an open side is a bound no tweet passes (ids are int64, times ms). */
export interface ClosedRange {
  sinceId: bigint;
  untilId: bigint;
  startMs: number;
  endMs: number;
}

const OPEN: ClosedRange = { sinceId: -1n, untilId: 2n ** 63n - 1n, startMs: -(2 ** 53), endMs: 2 ** 53 };

/** `range` with its open sides closed, so that one statement serves every range. */
export function closedRange(range: ReadRange | undefined): ClosedRange {
  return {
    sinceId: range?.sinceId === undefined ? OPEN.sinceId : BigInt(range.sinceId),
    untilId: range?.untilId === undefined ? OPEN.untilId : BigInt(range.untilId),
    startMs: range?.startMs ?? OPEN.startMs,
    endMs: range?.endMs ?? OPEN.endMs,
  };
}
