// Read ranges (since_id, until_id, start_time, end_time) as every adapter bounds its statements with.
import type { ReadRange } from "@social/core";

/** Ids [low, high), exactly. */
export interface IdRange {
  low: bigint;
  high: bigint;
}

export const higherId = (a: bigint, b: bigint): bigint => (a > b ? a : b);
export const lowerId = (a: bigint, b: bigint): bigint => (a < b ? a : b);

/** `range` narrowed to the ids strictly between `sinceId` and `untilId`. */
export function withinIds(range: IdRange, bounds: { sinceId?: bigint; untilId?: bigint }): IdRange {
  return {
    low: bounds.sinceId === undefined ? range.low : higherId(range.low, bounds.sinceId + 1n),
    high: bounds.untilId === undefined ? range.high : lowerId(range.high, bounds.untilId),
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
