// since: / until: as instants, since_id: / until_id: as ids, and the ones a whole query is confined to:
// a store can turn those into an index range instead of testing every tweet.
import type { SearchNode } from "./ast.ts";

/** A since: / until: value in epoch ms: 00:00:00.000Z of a date (YYYY-MM-DD), or the instant given. */
export function boundMs(value: string): number {
  const ms = Date.parse(value.length === 10 ? `${value}T00:00:00.000Z` : value);
  if (Number.isNaN(ms)) throw new RangeError(`search: invalid date ${JSON.stringify(value)}`);
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
  if (node.kind === "since") bounds.since = Math.max(bounds.since ?? -Infinity, boundMs(node.date));
  if (node.kind === "until") bounds.until = Math.min(bounds.until ?? Infinity, boundMs(node.date));
  return bounds;
}

/**
 * since_id: / until_id: that every match must satisfy, as the ids it must lie strictly between: those at
 * the top level or in top-level ANDs, the tightest of each.
 */
export function idBounds(
  node: SearchNode,
  bounds: { sinceId?: bigint; untilId?: bigint } = {},
): { sinceId?: bigint; untilId?: bigint } {
  if (node.kind === "and") for (const child of node.children) idBounds(child, bounds);
  if (node.kind === "since_id") {
    const id = BigInt(node.id);
    if (bounds.sinceId === undefined || id > bounds.sinceId) bounds.sinceId = id;
  }
  if (node.kind === "until_id") {
    const id = BigInt(node.id);
    if (bounds.untilId === undefined || id < bounds.untilId) bounds.untilId = id;
  }
  return bounds;
}
