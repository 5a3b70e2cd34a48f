// A tweet's search tags: what search finds a tweet by besides its text, author and language, as one
// token each, written by every adapter's index writer and asked for by its compiler alike. The filters
// it passes come first, in FILTER_NAMES' order, then its conversation, then whom it replies to: one
// order, because a SQLite index forgets a row only when told exactly what it indexed.
import { FILTER_NAMES, type SearchDocument, type SearchNode } from "@social/core";
import { authorToken } from "./search-tokens.ts";

const FILTER_OF_DOCUMENT: Record<(typeof FILTER_NAMES)[number], (doc: SearchDocument) => boolean> = {
  links: (doc) => doc.hasLinks,
  replies: (doc) => doc.isReply,
  retweets: (doc) => doc.isRetweet,
  quotes: (doc) => doc.isQuote,
  media: (doc) => doc.hasMedia,
  hashtags: (doc) => doc.hasHashtags,
  mentions: (doc) => doc.hasMentions,
  verified: (doc) => doc.authorVerified,
  nullcast: () => false,
};

function conversationTag(id: string): string {
  return `c${id}`;
}

/** The tag of a reply to `username`; undefined for a name no user can have. */
export function replyTag(username: string): string | undefined {
  const token = authorToken(username);
  return token === undefined ? undefined : `t${token}`;
}

export function searchTags(doc: SearchDocument): string[] {
  const tags: string[] = FILTER_NAMES.filter((filter) => FILTER_OF_DOCUMENT[filter](doc));
  tags.push(conversationTag(doc.conversationId));
  const reply = doc.replyToUsername === undefined ? undefined : replyTag(doc.replyToUsername);
  if (reply !== undefined) tags.push(reply);
  return tags;
}

/** The tag a filter, conversation_id: or to: asks for; undefined when no tweet can have it. */
export function nodeTag(node: Extract<SearchNode, { kind: "filter" | "conversation" | "to" }>): string | undefined {
  switch (node.kind) {
    case "filter":
      return node.filter;
    case "conversation":
      return conversationTag(node.id);
    case "to":
      return replyTag(node.username);
  }
}
