// Tokens as ./ast.ts defines them. This must agree with the store's FTS5 tokenizer
// (`unicode61 remove_diacritics 2 tokenchars '#$_'`), or the reference matcher and the store disagree.
import type { Tweet } from "../model.ts";
import type { SearchDocument } from "./ast.ts";

const TOKEN_RUN = /[\p{L}\p{N}\p{M}#$_]+/gu;
const MARKS = /\p{M}+/gu;

/** Case-folds one run of token characters and strips its diacritics; "" when it held only marks. */
export function foldToken(run: string): string {
  // Lowercasing first lets the dot that "İ" lowercases to go with the other marks. Final sigma is folded
  // to σ as FTS5 does, so a word's tokens do not depend on where a letter stands. NFC at the end joins
  // Hangul syllables again, which NFD splits but FTS5 keeps whole.
  return run.toLowerCase().replaceAll("ς", "σ").normalize("NFD").replace(MARKS, "").normalize("NFC");
}

export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const [run] of text.matchAll(TOKEN_RUN)) {
    const token = foldToken(run);
    if (token !== "") tokens.push(token);
  }
  return tokens;
}

/** What a tweet's search needs to know of the users around it. */
export interface SearchContext {
  author: { username: string; verified: boolean };
  /** The username of the user it replies to, when that user is known. */
  replyToUsername?: string;
}

export function searchDocument(tweet: Tweet, context: SearchContext): SearchDocument {
  return {
    text: tweet.text,
    authorUsername: context.author.username,
    lang: tweet.lang,
    createdAt: tweet.created_at,
    likeCount: tweet.like_count,
    retweetCount: tweet.retweet_count,
    hasLinks: tweet.entities.urls.length > 0,
    isReply: tweet.in_reply_to_user_id !== undefined,
    isRetweet: tweet.referenced_tweets?.some((reference) => reference.type === "retweeted") ?? false,
    isQuote: tweet.is_quote_status,
    hasMedia: (tweet.media?.length ?? 0) > 0,
    hasHashtags: tweet.entities.hashtags.length > 0,
    hasMentions: tweet.entities.mentions.length > 0,
    authorVerified: context.author.verified,
    id: tweet.id,
    conversationId: tweet.conversation_id,
    ...(context.replyToUsername === undefined ? {} : { replyToUsername: context.replyToUsername }),
  };
}
