// What each column of `tweets_fts` holds, shared by the writer that fills it and the compiler that
// queries it, so both sides encode a value the same way.
//
// - text: the tweet's text, tokenized like the search language.
// - author: the author's username, lower-cased. Usernames are [A-Za-z0-9_], a single token.
// - lang: one token made of the lower-cased code in hex, so that `lang:pt` cannot match `pt-BR` (the
//   tokenizer would split `pt-BR` into two tokens) and any code stays exact.
// - flags: `links` and/or `replies`, for filter:links and filter:replies.
import { USERNAME_PATTERN } from "@social/core";

export type FtsColumn = "text" | "author" | "lang" | "flags";

const utf8 = new TextEncoder();

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

/**
 * The author column's token, or undefined for a name no user can have. Lower-casing comes first because
 * from: compares lower-cased names, and some non-ASCII letters lower-case to ASCII (the Kelvin sign → k).
 */
export function authorToken(username: string): string | undefined {
  const lower = username.toLowerCase();
  return USERNAME_PATTERN.test(lower) ? lower : undefined;
}

export function langToken(code: string): string {
  return `l${Array.from(utf8.encode(code.toLowerCase()), (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

export function flagsText(flags: { hasLinks: boolean; isReply: boolean }): string {
  return [flags.hasLinks ? "links" : "", flags.isReply ? "replies" : ""].filter(Boolean).join(" ");
}
