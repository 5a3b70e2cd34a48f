// Read ranges (since_id, until_id, start_time, end_time) as every adapter bounds its statements with.
import type { ReadRange } from "@social/core";

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * `range` ([low, high), in numbers) narrowed to the ids strictly between `sinceId` and `untilId`. Stored
 * ids are safe integers (storedId), so a sinceId past 2^53 leaves nothing to walk (a collector that
 * moved here from X polls with ids of about 2^60), and an untilId past it bounds nothing.
 */
export function withinIds(
  range: { low: number; high: number },
  bounds: { sinceId?: bigint; untilId?: bigint },
): { low: number; high: number } {
  if (bounds.sinceId !== undefined && bounds.sinceId >= MAX_SAFE) return { low: range.high, high: range.high };
  const exact = (id: bigint | undefined): id is bigint => id !== undefined && id <= MAX_SAFE;
  return {
    low: bounds.sinceId === undefined ? range.low : Math.max(range.low, Number(bounds.sinceId) + 1),
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
