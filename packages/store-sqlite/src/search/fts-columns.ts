// What each column of `tweets_fts` holds, shared by the writer that fills it and the compiler that
// queries it, so both sides encode a value the same way.
//
// - text: the tweet's text, tokenized like the search language.
// - author: the author's username as authorToken (@social/store-common) encodes it, a single token.
// - lang: the code as langToken encodes it, a single token.
// - flags: the tweet's search tags (searchTags in @social/store-common): the filters it passes, its
//   conversation and whom it replies to.

export type FtsColumn = "text" | "author" | "lang" | "flags";

/**
 * An FTS5 string literal. Everything between the quotes is only tokenized, never parsed as syntax;
 * NUL is replaced by a space because FTS5's parser ends the string there, and the tokenizer treats
 * both as separators.
 */
export function ftsString(value: string): string {
  return `"${value.replaceAll('"', '""').replaceAll("\0", " ")}"`;
}

/** `column : "value"` — a phrase confined to one column. */
export function ftsPhrase(column: FtsColumn, value: string): string {
  return `${column} : ${ftsString(value)}`;
}
