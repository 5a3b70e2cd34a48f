// A monitor's query: the search language with its bounds, less what cannot apply to posts matched as
// they arrive, and with an anchor the percolator can index (./anchor.ts).
import { invalidRequest } from "../errors.ts";
import type { SearchNode } from "../search/ast.ts";
import { parseSearchQuery } from "../search/query-param.ts";
import { queryAnchor } from "./anchor.ts";

const TIME_BOUNDS: ReadonlySet<SearchNode["kind"]> = new Set(["since", "until", "since_id", "until_id"]);

/** The query a monitor is created with, parsed; an invalid_request ApiError for one it cannot have. */
export function parseMonitorQuery(query: string): SearchNode {
  const node = parseSearchQuery(query);
  const bound = timeBoundIn(node);
  if (bound !== undefined) {
    refuse(
      `${bound}: is not allowed: a monitor matches posts as they arrive; time bounds do not apply. Remove ${bound}:`,
    );
  }
  if (queryAnchor(node) === undefined) {
    refuse(
      "every post a monitor matches must hold one of a word, phrase, hashtag, cashtag, from:, to:, conversation_id: or lang:. " +
        'Add one that is not negated, to the whole query or to each side of its ORs (e.g. "coffee -is:retweet", not "-is:retweet")',
    );
  }
  return node;
}

/** The first since:, until:, since_id: or until_id: anywhere in the query, negated or not. */
function timeBoundIn(node: SearchNode): string | undefined {
  if (TIME_BOUNDS.has(node.kind)) return node.kind;
  if (node.kind === "not") return timeBoundIn(node.child);
  if (node.kind === "and" || node.kind === "or") {
    for (const child of node.children) {
      const bound = timeBoundIn(child);
      if (bound !== undefined) return bound;
    }
  }
  return undefined;
}

function refuse(message: string): never {
  throw invalidRequest(`query: ${message}`, [{ parameter: "query", message }]);
}
