// The reference matcher: the meaning of each node exactly as ./ast.ts states it, written for clarity,
// not speed. Store compilers are property-tested against it.
import type { SearchDocument, SearchNode } from "./ast.ts";
import { tokenize } from "./text.ts";

export function matches(node: SearchNode, doc: SearchDocument): boolean {
  let textTokens: string[] | undefined;
  // Text node values are tokenized again rather than trusted, so a hand-built AST ("Café") means what a
  // store's FTS5 would make of it; for parsed ASTs this is the identity.
  const holds = (text: string): boolean => {
    textTokens ??= tokenize(doc.text);
    return containsRun(textTokens, tokenize(text));
  };
  const test = (n: SearchNode): boolean => {
    switch (n.kind) {
      case "and":
        return n.children.every(test);
      case "or":
        return n.children.some(test);
      case "not":
        return !test(n.child);
      case "term":
      case "phrase":
        return holds(n.value);
      case "hashtag":
        return holds(`#${n.value}`);
      case "cashtag":
        return holds(`$${n.value}`);
      case "from":
        return doc.authorUsername.toLowerCase() === n.username.toLowerCase();
      case "lang":
        return doc.lang.toLowerCase() === n.code.toLowerCase();
      case "since":
        return doc.createdAt >= startOfDay(n.date);
      case "until":
        return doc.createdAt < startOfDay(n.date);
      case "min_faves":
        return doc.likeCount >= n.count;
      case "min_retweets":
        return doc.retweetCount >= n.count;
      case "filter":
        return n.filter === "links" ? doc.hasLinks : doc.isReply;
    }
  };
  return test(node);
}

/** Whether `run` occurs as consecutive tokens in `tokens`; an empty run matches nothing. */
function containsRun(tokens: readonly string[], run: readonly string[]): boolean {
  if (run.length === 0) return false;
  for (let start = 0; start + run.length <= tokens.length; start++) {
    if (run.every((token, offset) => tokens[start + offset] === token)) return true;
  }
  return false;
}

function startOfDay(date: string): string {
  return `${date}T00:00:00.000Z`;
}
