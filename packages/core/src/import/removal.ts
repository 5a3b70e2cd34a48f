// What every adapter's removal starts from: which ids it can be asked for, and its row counts at zero
// (the port, and what a removal takes out, are in ports/world-removal.ts).
import { ID_CEILING } from "../params.ts";
import type { RemovedRows } from "../ports/world-removal.ts";

export function noRemovedRows(): RemovedRows {
  return {
    users: 0,
    tweets: 0,
    follows: 0,
    lists: 0,
    list_members: 0,
    list_subscribers: 0,
    community_members: 0,
    community_tweets: 0,
    articles: 0,
  };
}

const DIGITS = /^\d{1,19}$/;

/**
 * `text` as an id a removal can be asked for, in its canonical digits: up to ID_CEILING, the largest
 * int64, one past the largest id accepted now, so that a world imported before ids were bounded can be
 * rid of one. Undefined for anything else.
 */
export function removableId(text: string): string | undefined {
  if (!DIGITS.test(text)) return undefined;
  const id = BigInt(text);
  return id <= ID_CEILING ? String(id) : undefined;
}
