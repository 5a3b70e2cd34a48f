// X's from: and to: take a user's numeric id as well as a username (from:2244994945), and collectors
// that keep ids write them so. The stores index usernames, so before a search reads, a numeric value is
// joined by the username of the user with that id, when there is one; the digits stay beside it, as a
// username may be all digits too. One lookup by ids per query, however many such values it holds.
import type { Store } from "../ports/store.ts";
import type { SearchNode } from "./ast.ts";

const DIGITS = /^\d+$/;

type UserNode = Extract<SearchNode, { kind: "from" | "to" }>;

function isNumericUser(node: SearchNode): node is UserNode {
  return (node.kind === "from" || node.kind === "to") && DIGITS.test(node.username);
}

function numericUsers(node: SearchNode): string[] {
  if (isNumericUser(node)) return [node.username];
  if (node.kind === "and" || node.kind === "or") return node.children.flatMap(numericUsers);
  return node.kind === "not" ? numericUsers(node.child) : [];
}

function rewrite(node: SearchNode, usernames: ReadonlyMap<string, string>): SearchNode {
  if (isNumericUser(node)) {
    const username = usernames.get(node.username);
    return username === undefined ? node : { kind: "or", children: [node, { ...node, username }] };
  }
  if (node.kind === "and" || node.kind === "or") {
    return { kind: node.kind, children: node.children.map((child) => rewrite(child, usernames)) };
  }
  return node.kind === "not" ? { kind: "not", child: rewrite(node.child, usernames) } : node;
}

/** `query` with each numeric from: / to: also matching the user whose id it is. */
export async function withUserIds(query: SearchNode, store: Pick<Store, "usersByIds">): Promise<SearchNode> {
  const ids = [...new Set(numericUsers(query))];
  if (ids.length === 0) return query;
  const users = await store.usersByIds(ids);
  return rewrite(query, new Map(users.map((user) => [user.id, user.username.toLowerCase()])));
}
