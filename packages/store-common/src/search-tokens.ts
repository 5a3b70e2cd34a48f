// The search fields beside the text (from:, lang:) as one token each, encoded alike by every adapter's
// index writer and query compiler, so that both sides of one adapter always agree.
import { USERNAME_PATTERN } from "@social/core";

const utf8 = new TextEncoder();

/**
 * The author's token, or undefined for a name no user can have. Lower-casing comes first because from:
 * compares lower-cased names, and some non-ASCII letters lower-case to ASCII (the Kelvin sign → k).
 */
export function authorToken(username: string): string | undefined {
  const lower = username.toLowerCase();
  return USERNAME_PATTERN.test(lower) ? lower : undefined;
}

/**
 * The language's token: the lower-cased code in hex, so that `lang:pt` cannot match `pt-BR` (a
 * tokenizer would split `pt-BR` in two) and any code a client sends stays one exact, inert token.
 */
export function langToken(code: string): string {
  return `l${Array.from(utf8.encode(code.toLowerCase()), (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}
