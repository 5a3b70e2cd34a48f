// How many items an answer may hold as its surface renders it (MCP's output budget): a read is read
// again with fewer items until it fits, and charged for those.
import type { Endpoint, ReadResult } from "../endpoint.ts";
import type { OutputLimit } from "./read-request.ts";

/** The items a read's cost counts: the entry's count of its data, or the count that came with its JSON text. */
export function countedItems(endpoint: Endpoint, result: ReadResult<unknown>): number {
  return "count" in result ? result.count : endpoint.counted(result.data);
}

/**
 * Reads at most `maxItems`, and again with fewer while the answer is larger than the surface's output
 * limit: each time as many as the last read's size says will fit, a little under, so one more read is
 * the usual case. A read of one item is never cut, nor one whose entry returns as many items whatever
 * it is allowed (trends take their own limit): asking again would only read the same answer.
 */
export async function withinOutputLimit(
  endpoint: Endpoint,
  read: (items: number) => Promise<ReadResult<unknown>>,
  maxItems: number,
  limit: OutputLimit | undefined,
): Promise<{ result: ReadResult<unknown>; items: number; shortened?: true }> {
  let result = await read(maxItems);
  if (!limit) return { result, items: maxItems };
  let items = maxItems;
  let size = limit.size(result.data);
  let count = countedItems(endpoint, result);
  while (size > limit.max && count > 1) {
    const allowed = Math.max(1, Math.min(count - 1, Math.floor(((count * limit.max) / size) * 0.95)));
    const fewer = await read(allowed);
    const fewerCount = countedItems(endpoint, fewer);
    if (fewerCount >= count) break;
    result = fewer;
    items = allowed;
    count = fewerCount;
    size = limit.size(result.data);
  }
  return items < maxItems ? { result, items, shortened: true } : { result, items };
}
