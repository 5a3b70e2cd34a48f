// The tweets' `search_vector` and the tsquery lexemes that query it. PostgreSQL's own parsers do not
// tokenize as the core does (they drop `#` and `$`, keep accents), so the vector is written from the
// core's tokens (`tokenize`, meaning fixed in @social/core search/ast.ts) and queries are written as
// tsquery text from the same tokens; neither side ever goes through to_tsvector or to_tsquery.
//
// - Text tokens carry their positions (1, 2, …) and weight A, so `<->` finds phrases and ranking can
//   weigh text alone.
// - So does each pair of adjacent tokens, as one lexeme `a b` (no token holds a space): a phrase of two
//   words is then one lexeme the GIN index answers exactly, and a longer one is narrowed down by its
//   pairs before PostgreSQL reads positions from the table, which is what makes phrases of common
//   words slow.
// - The author, the language and the search tags (searchTags in @social/store-common: filters, the
//   conversation, whom it replies to) are lexemes no text token can equal (a token holds only letters,
//   numbers, marks, `#`, `$` and `_`): `@name`, `lang:<hex>`, `filter:links`, `filter:c<id>`. They
//   carry no position, so they never take part in a phrase.
// - The spans of hours the tweet was created in, `time1h:<n>` … `time256h:<n>`, which let search ask the
//   GIN index for the matches among a few hours' tweets (see ./hours.ts).
// - PostgreSQL refuses a lexeme over 2,046 bytes, keeps positions up to 16,383 and 256 of them per
//   lexeme. A longer token is replaced by its digest, on both sides alike; positions past those bounds
//   are dropped, which only a text far longer than a post could notice (a phrase after its 16,383rd
//   word, or past the 256th repeat of one word).
import { createHash } from "node:crypto";
import { type SearchDocument, tokenize } from "@social/core";
import { authorToken, langToken, searchTags } from "@social/store-common";
import { hourOf, timeLexemes } from "./hours.ts";

const MAX_LEXEME_BYTES = 2046;
const MAX_POSITION = 16_383;
const MAX_POSITIONS_PER_LEXEME = 256;
const utf8 = new TextEncoder();

/** The lexeme of one core token. */
function lexeme(token: string): string {
  if (utf8.encode(token).length <= MAX_LEXEME_BYTES) return token;
  return `~${createHash("sha256").update(token).digest("hex")}`;
}

/** A quoted lexeme of tsvector or tsquery text: inside the quotes only `'` and `\` need escaping. */
function quoted(value: string): string {
  return `'${value.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;
}

/** The lexemes of tsquery text written with `quoted`, unescaped. */
export function lexemesOf(tsquery: string): string[] {
  return Array.from(tsquery.matchAll(/'((?:[^'\\]|''|\\.)*)'/gs), ([, body]) =>
    (body as string).replace(/\\(.)|''/gs, (_, escaped: string | undefined) => escaped ?? "'"),
  );
}

export function authorLexeme(username: string): string | undefined {
  const token = authorToken(username);
  return token === undefined ? undefined : quoted(`@${token}`);
}

export function langLexeme(code: string): string {
  return quoted(`lang:${langToken(code)}`);
}

/** A search tag as a lexeme, unquoted; `filter:` because the first tags were filter:links and filter:replies. */
export function tagLexemeText(tag: string): string {
  return `filter:${tag}`;
}

/** The lexeme of a search tag, as tsvector and tsquery text write it. */
export function tagLexeme(tag: string): string {
  return quoted(tagLexemeText(tag));
}

function pairOf(first: string, second: string): string {
  return lexeme(`${first} ${second}`);
}

export interface PhraseQuery {
  /** The tsquery of the phrase. */
  query: string;
  /**
   * For three tokens or more, its pairs alone: what the GIN index is asked, the positions being tested
   * on the rows it finds. Asked for `a <-> b <-> c` too, the index would read the postings of each word,
   * hundreds of thousands for `this` or `for`, which the pairs hold already.
   */
  index?: string;
}

/** The tsquery of a phrase (one token or several in a row), or undefined when `text` holds no token. */
export function phraseQuery(text: string): PhraseQuery | undefined {
  const tokens = tokenize(text);
  if (tokens.length <= 1) return tokens[0] === undefined ? undefined : { query: quoted(lexeme(tokens[0])) };
  const pairs = tokens.slice(1).map((token, index) => quoted(pairOf(tokens[index] as string, token)));
  if (tokens.length === 2) return { query: pairs[0] as string };
  // The pairs narrow it down; only the positions tell `a b c` from `a b … b c`.
  const index = pairs.join(" & ");
  return { query: `${index} & (${tokens.map((token) => quoted(lexeme(token))).join(" <-> ")})`, index };
}

/** The tsvector text of one tweet, from what search knows of it. */
export function searchVector(fields: SearchDocument): string {
  const positions = new Map<string, number[]>();
  const add = (key: string, position: number) => {
    if (position > MAX_POSITION) return;
    const list = positions.get(key);
    if (list === undefined) positions.set(key, [position]);
    else if (list.length < MAX_POSITIONS_PER_LEXEME) list.push(position);
  };
  const tokens = tokenize(fields.text);
  tokens.forEach((token, index) => {
    add(lexeme(token), index + 1);
    if (index > 0) add(pairOf(tokens[index - 1] as string, token), index);
  });
  const parts = Array.from(positions, ([key, list]) => `${quoted(key)}:${list.map((p) => `${p}A`).join(",")}`);
  const author = authorLexeme(fields.authorUsername);
  if (author === undefined) {
    throw new Error(`searchVector: ${JSON.stringify(fields.authorUsername)} is not a username`);
  }
  parts.push(
    author,
    langLexeme(fields.lang),
    ...timeLexemes(hourOf(Date.parse(fields.createdAt))),
    ...searchTags(fields).map(tagLexeme),
  );
  return parts.join(" ");
}
