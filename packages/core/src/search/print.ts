// The canonical text of a query: parseQuery(printQuery(ast)) deep-equals ast for every AST parseQuery
// produces. Parentheses appear only where precedence needs them (OR binds looser than the implicit AND).
import type { SearchNode } from "./ast.ts";

export function printQuery(node: SearchNode): string {
  switch (node.kind) {
    case "and":
      return node.children
        .map((child) => (child.kind === "or" ? `(${printQuery(child)})` : printQuery(child)))
        .join(" ");
    case "or":
      return node.children.map(printQuery).join(" OR ");
    case "not":
      return node.child.kind === "and" || node.child.kind === "or"
        ? `-(${printQuery(node.child)})`
        : `-${printQuery(node.child)}`;
    case "term":
      return node.value;
    case "phrase":
      return `"${node.value}"`;
    case "hashtag":
      return `#${node.value}`;
    case "cashtag":
      return `$${node.value}`;
    case "from":
      return `from:${node.username}`;
    case "lang":
      return `lang:${node.code}`;
    case "since":
    case "until":
      return `${node.kind}:${node.date}`;
    case "min_faves":
    case "min_retweets":
      return `${node.kind}:${node.count}`;
    case "filter":
      return `filter:${node.filter}`;
    case "conversation":
      return `conversation_id:${node.id}`;
    case "to":
      return `to:${node.username}`;
    case "since_id":
    case "until_id":
      return `${node.kind}:${node.id}`;
  }
}
