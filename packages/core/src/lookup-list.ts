// Lookups by a list (tweets and users by ids, users by usernames): each value asked for is answered by
// an item or reported as not found, on every surface (/2's `errors`, MCP's `not_found`), and a smaller
// request that fits a budget has fewer values. One place knows how a value matches an item.
import type { Endpoint } from "./endpoint.ts";
import { distinctUsernames, MAX_ID_DIGITS, MAX_IDS } from "./params.ts";

export const LOOKUP_LISTS = ["ids", "usernames"] as const;
export type LookupList = (typeof LOOKUP_LISTS)[number];

/** The longest value of each list, for the room a report of them takes. */
const LONGEST_VALUE: Record<LookupList, number> = { ids: MAX_ID_DIGITS, usernames: 15 };

/** The list parameter an endpoint looks items up by, if it is a lookup by a list. */
export function lookupListOf(endpoint: Pick<Endpoint, "params">): LookupList | undefined {
  return LOOKUP_LISTS.find((name) => name in endpoint.params.entries);
}

/** The distinct values of a list as sent (comma-separated), in order: what the endpoint reads. */
export function askedValues(list: LookupList, text: string): string[] {
  const values = text.split(",");
  return list === "ids" ? [...new Set(values)] : distinctUsernames(values);
}

/** The values asked for that no item answers: ids exactly, usernames whatever their case. */
export function missingValues(list: LookupList, asked: readonly string[], items: readonly unknown[]): string[] {
  const field = list === "ids" ? "id" : "username";
  const key = (value: string) => (list === "ids" ? value : value.toLowerCase());
  const found = new Set(
    items.flatMap((item) => {
      const value = (item as Record<string, unknown>)[field];
      return typeof value === "string" ? [key(value)] : [];
    }),
  );
  return asked.filter((value) => !found.has(key(value)));
}

/** The most characters a report of a list's values takes as a JSON array. */
export function listReportRoom(list: LookupList): number {
  return MAX_IDS * (LONGEST_VALUE[list] + 3);
}
