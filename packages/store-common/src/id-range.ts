// Read ranges (since_id, until_id, start_time, end_time) as every adapter bounds its statements with.
import { ID_CEILING, type ReadRange } from "@social/core";

/** Ids [low, high), exactly. */
export interface IdRange {
  low: bigint;
  high: bigint;
}

export const higherId = (a: bigint, b: bigint): bigint => (a > b ? a : b);
export const lowerId = (a: bigint, b: bigint): bigint => (a < b ? a : b);

/**
 * The ids [low, high) of a world whose smallest and largest tweet ids are `min` and `max` (as a database
 * returns them). A world imported before ids were bounded may hold one past MAX_ID: it is left out, so
 * that `max + 1` stays an int64 the databases can bind.
 */
export function worldIds(min: string, max: string): IdRange {
  return { low: BigInt(min), high: lowerId(BigInt(max) + 1n, ID_CEILING) };
}

/** `range` narrowed to the ids strictly between `sinceId` (at most MAX_ID: core's sinceIdBound) and `untilId`. */
export function withinIds(range: IdRange, bounds: { sinceId?: bigint; untilId?: bigint }): IdRange {
  return {
    low: bounds.sinceId === undefined ? range.low : higherId(range.low, bounds.sinceId + 1n),
    high: bounds.untilId === undefined ? range.high : lowerId(range.high, bounds.untilId),
  };
}

/** A read range with every bound given: an open side is a bound no tweet passes (ids up to MAX_ID, times ms). */
export interface ClosedRange {
  sinceId: bigint;
  untilId: bigint;
  startMs: number;
  endMs: number;
}

const OPEN: ClosedRange = { sinceId: -1n, untilId: ID_CEILING, startMs: -(2 ** 53), endMs: 2 ** 53 };

/** `range` with its open sides closed, so that one statement serves every range. */
export function closedRange(range: ReadRange | undefined): ClosedRange {
  return {
    sinceId: range?.sinceId === undefined ? OPEN.sinceId : BigInt(range.sinceId),
    untilId: range?.untilId === undefined ? OPEN.untilId : BigInt(range.untilId),
    startMs: range?.startMs ?? OPEN.startMs,
    endMs: range?.endMs ?? OPEN.endMs,
  };
}
