// since: and until: as instants, and the ones a whole query is confined to: a store can turn those into
// an index range instead of testing every tweet.
import type { SearchNode } from "./ast.ts";

/** 00:00:00.000Z of `date` (YYYY-MM-DD) in epoch ms. */
export function dayStartMs(date: string): number {
  const ms = Date.parse(`${date}T00:00:00.000Z`);
  if (Number.isNaN(ms)) throw new RangeError(`search: invalid date ${JSON.stringify(date)}`);
  return ms;
}

/**
 * since: / until: that every match must satisfy (epoch ms, until exclusive): those at the top level or
 * in top-level ANDs.
 */
export function timeBounds(
  node: SearchNode,
  bounds: { since?: number; until?: number } = {},
): { since?: number; until?: number } {
  if (node.kind === "and") for (const child of node.children) timeBounds(child, bounds);
  if (node.kind === "since") bounds.since = Math.max(bounds.since ?? -Infinity, dayStartMs(node.date));
  if (node.kind === "until") bounds.until = Math.min(bounds.until ?? Infinity, dayStartMs(node.date));
  return bounds;
}
