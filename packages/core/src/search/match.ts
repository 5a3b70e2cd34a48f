// The reference matcher: the meaning of each node exactly as ./ast.ts states it, written for clarity,
// not speed. Store compilers are property-tested against it.
import type { FilterName, SearchDocument, SearchNode } from "./ast.ts";
import { tokenize } from "./text.ts";
import { boundMs } from "./time-bounds.ts";

/**
 * Whether `doc` matches `node`. `textTokens` is tokenize(doc.text) when the caller has it already, as one
 * that tests many queries against the same tweet does.
 */
export function matches(node: SearchNode, doc: SearchDocument, textTokens?: readonly string[]): boolean {
  let tokens = textTokens;
  // Text node values are tokenized again rather than trusted, so a hand-built AST ("Café") means what a
  // store's FTS5 would make of it; for parsed ASTs this is the identity.
  const holds = (text: string): boolean => {
    tokens ??= tokenize(doc.text);
    return containsRun(tokens, tokenize(text));
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
      case "hashtag":
      case "cashtag":
        return holds(searchedText(n));
      case "from":
        return doc.authorUsername.toLowerCase() === n.username.toLowerCase();
      case "lang":
        return doc.lang.toLowerCase() === n.code.toLowerCase();
      case "since":
        return Date.parse(doc.createdAt) >= boundMs(n.date);
      case "until":
        return Date.parse(doc.createdAt) < boundMs(n.date);
      case "min_faves":
        return doc.likeCount >= n.count;
      case "min_retweets":
        return doc.retweetCount >= n.count;
      case "filter":
        return hasFilter(doc, n.filter);
      case "conversation":
        return doc.conversationId === n.id;
      case "to":
        return doc.replyToUsername?.toLowerCase() === n.username.toLowerCase();
      case "since_id":
        return BigInt(doc.id) > BigInt(n.id);
      case "until_id":
        return BigInt(doc.id) < BigInt(n.id);
    }
  };
  return test(node);
}

/** A node that asks the tweet's text to hold its tokens, consecutively. */
export type TextNode = Extract<SearchNode, { kind: "term" | "phrase" | "hashtag" | "cashtag" }>;

/** The text whose tokens a text node asks for: a hashtag's and a cashtag's with their sigil. */
export function searchedText(node: TextNode): string {
  switch (node.kind) {
    case "hashtag":
      return `#${node.value}`;
    case "cashtag":
      return `$${node.value}`;
    default:
      return node.value;
  }
}

function hasFilter(doc: SearchDocument, filter: FilterName): boolean {
  switch (filter) {
    case "links":
      return doc.hasLinks;
    case "replies":
      return doc.isReply;
    case "retweets":
      return doc.isRetweet;
    case "quotes":
      return doc.isQuote;
    case "media":
      return doc.hasMedia;
    case "hashtags":
      return doc.hasHashtags;
    case "mentions":
      return doc.hasMentions;
    case "verified":
      return doc.authorVerified;
    case "nullcast":
      return false;
  }
}

/** Whether `run` occurs as consecutive tokens in `tokens`; an empty run matches nothing. */
function containsRun(tokens: readonly string[], run: readonly string[]): boolean {
  if (run.length === 0) return false;
  for (let start = 0; start + run.length <= tokens.length; start++) {
    if (run.every((token, offset) => tokens[start + offset] === token)) return true;
  }
  return false;
}
