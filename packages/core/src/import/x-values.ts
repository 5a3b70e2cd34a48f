// The readers of X API v2 values the import maps from: ids, texts, counts, addresses and entity
// elements, each leaving out (or refusing, for what an object cannot do without) what is not one.
import { type CashtagEntity, type Entities, USERNAME_PATTERN } from "../model.ts";
import { MAX_ID } from "../params.ts";

export type Json = Record<string, unknown>;

/** Why an object was not imported, in a sentence for the operator. */
export class Refusal {
  constructor(readonly reason: string) {}
}

const CANONICAL_ID = /^(0|[1-9]\d{0,18})$/;

export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An id as X writes it (digits, within a signed 64-bit integer), up to the largest id the stores accept. */
export function isXId(value: unknown): value is string {
  return typeof value === "string" && CANONICAL_ID.test(value) && BigInt(value) <= MAX_ID;
}

/** PostgreSQL's text cannot hold U+0000, and no post or profile has one. */
export function storable(text: string, what: string): string {
  if (text.includes("\u0000")) throw new Refusal(`${what} holds a NUL character (U+0000)`);
  return text;
}

export function text(value: unknown, what: string, fallback = ""): string {
  return typeof value === "string" ? storable(value, what) : fallback;
}

export function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

export function count(value: unknown): number {
  return isCount(value) ? value : 0;
}

export function isWebUrl(value: unknown): value is string {
  if (typeof value !== "string" || !URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === "https:" || protocol === "http:";
}

/** The elements of `value` that `item` makes something of; anything else is left out. */
export function each<T>(value: unknown, item: (element: Json) => T | undefined): T[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((element) => {
    if (!isObject(element)) return [];
    const made = item(element);
    return made === undefined ? [] : [made];
  });
}

function span(element: Json): { start: number; end: number } | undefined {
  const { start, end } = element;
  return isCount(start) && isCount(end) ? { start, end } : undefined;
}

/** Hashtags and cashtags: `{start, end, tag}`. */
export function tags(value: unknown, what: string): CashtagEntity[] {
  return each(value, (element) => {
    const at = span(element);
    return at && typeof element.tag === "string" ? { ...at, tag: storable(element.tag, what) } : undefined;
  });
}

/** Urls that are web addresses; a url without an expanded or display form shows itself. */
export function urls(value: unknown): Entities["urls"] {
  return each(value, (element) => {
    const at = span(element);
    if (at === undefined || !isWebUrl(element.url)) return undefined;
    const expanded = isWebUrl(element.expanded_url) ? element.expanded_url : element.url;
    const display = typeof element.display_url === "string" ? element.display_url : expanded;
    return { ...at, url: element.url, expanded_url: expanded, display_url: storable(display, "a url") };
  });
}

/**
 * Mentions by a username X allows; their user's id as given, else as `idOf` finds it by username, else
 * none (kept by username until that user is imported).
 */
export function mentions(value: unknown, idOf: (username: string) => string | undefined): Entities["mentions"] {
  return each(value, (element) => {
    const at = span(element);
    const { username, id } = element;
    if (at === undefined || typeof username !== "string" || !USERNAME_PATTERN.test(username)) return undefined;
    const known = isXId(id) ? id : idOf(username);
    return known === undefined ? { ...at, username } : { ...at, username, id: known };
  });
}
