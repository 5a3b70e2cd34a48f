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

export function searchDocument(tweet: Tweet, authorUsername: string): SearchDocument {
  return {
    text: tweet.text,
    authorUsername,
    lang: tweet.lang,
    createdAt: tweet.created_at,
    likeCount: tweet.like_count,
    retweetCount: tweet.retweet_count,
    hasLinks: tweet.entities.urls.length > 0,
    isReply: tweet.in_reply_to_user_id !== undefined,
  };
}
