// One line of a JSON Lines archive: an X API v2 page (`data`, `includes`, `meta`, `errors`, one response
// per line as twarc2 and most collectors write them) or one tweet or user object (as twarc2's flatten
// writes them, with the author embedded). Objects the line holds are made into model objects one by
// one: a bad one is refused with its reason and the others are kept.

import { otherObjectKind } from "./line-kinds.ts";
import { foldUsername } from "./usernames.ts";
import {
  type ImportedTweet,
  type ImportedUser,
  importedTweet,
  importedUser,
  keepNumericIds,
  Refusal,
  type UsernameIds,
} from "./x-objects.ts";

export const IMPORT_FORMATS = ["auto", "pages", "tweets", "users"] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** A line longer than this is no page X returns (a full page with every expansion is well under 1 MB). */
export const MAX_LINE_CHARS = 16 * 1024 * 1024;

type Json = Record<string, unknown>;

export interface LineObjects {
  users: ImportedUser[];
  tweets: ImportedTweet[];
  /** Objects of the line that were not imported, and why. */
  refusals: string[];
  /** Resources X reported missing in the page's `errors` (deleted or protected posts, gone accounts). */
  missing: number;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isPage(object: Json): boolean {
  return "data" in object || "includes" in object || "meta" in object || "errors" in object;
}

function itemsOf(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/** Collects what each object makes, or why it was refused. */
class Collector implements LineObjects {
  readonly users: ImportedUser[] = [];
  readonly tweets: ImportedTweet[] = [];
  readonly refusals: string[] = [];
  missing = 0;

  user(object: unknown): void {
    this.#make(object, "a user", () => this.users.push(importedUser(object)));
  }

  tweet(object: unknown, media: ReadonlyMap<string, Json>, idOf: UsernameIds): void {
    this.#make(object, "a tweet", () => this.tweets.push(importedTweet(object, media, idOf)));
  }

  #make(object: unknown, expected: string, make: () => void): void {
    try {
      const other = otherObjectKind(object);
      if (other !== undefined) throw new Refusal(`${other}, not ${expected}: X objects of that kind are not imported`);
      make();
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      this.refusals.push(error.reason);
    }
  }
}

function mediaByKey(items: unknown): Map<string, Json> {
  const media = new Map<string, Json>();
  for (const item of itemsOf(items)) {
    if (isObject(item) && typeof item.media_key === "string") media.set(item.media_key, item);
  }
  return media;
}

function isUser(item: unknown): item is Json {
  return isObject(item) && "username" in item;
}

/** The ids of `users` by folded username: how a page's mentions, given by username, find their users. */
function usernameIds(users: readonly unknown[]): UsernameIds {
  const ids = new Map<string, string>();
  for (const user of users) {
    if (isUser(user) && typeof user.username === "string" && typeof user.id === "string") {
      ids.set(foldUsername(user.username), user.id);
    }
  }
  return (username) => ids.get(foldUsername(username));
}

/** In a page's `data` a user object is told from a tweet by its username, which no tweet has. */
function readPage(page: Json, into: Collector): void {
  const includes = isObject(page.includes) ? page.includes : {};
  const media = mediaByKey(includes.media);
  const data = itemsOf(page.data);
  const idOf = usernameIds([...itemsOf(includes.users), ...data]);
  for (const user of itemsOf(includes.users)) into.user(user);
  for (const item of data) {
    if (isUser(item)) into.user(item);
    else into.tweet(item, media, idOf);
  }
  for (const tweet of itemsOf(includes.tweets)) into.tweet(tweet, media, idOf);
  into.missing += itemsOf(page.errors).length;
}

/**
 * A tweet object on its own; twarc2's flatten embeds its author, its media objects and the users it
 * mentions. A user object here is refused as what it is.
 */
function readTweet(object: Json, into: Collector): void {
  if ("username" in object) {
    into.refusals.push(`a user object (@${String(object.username).slice(0, 15)}) on a line read as a tweet`);
    return;
  }
  const mentioned = isObject(object.entities) ? itemsOf(object.entities.mentions) : [];
  const idOf = usernameIds([object.author, ...mentioned]);
  if (object.author !== undefined) into.user(object.author);
  const attachments = isObject(object.attachments) ? object.attachments : {};
  into.tweet(object, mediaByKey(attachments.media), idOf);
}

/** The objects of one line, read as `format` says (auto: a page if it looks like one, else by its fields). */
export function objectsOfLine(line: string, format: ImportFormat): LineObjects {
  const into = new Collector();
  if (line.trim() === "") return into;
  if (line.length > MAX_LINE_CHARS)
    throw new Refusal(`a line of more than ${MAX_LINE_CHARS.toLocaleString("en-US")} characters`);
  let object: unknown;
  try {
    object = JSON.parse(line, keepNumericIds as Parameters<typeof JSON.parse>[1]);
  } catch (error) {
    throw new Refusal(`not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!isObject(object)) throw new Refusal("not a JSON object");
  const kind = format !== "auto" ? format : isPage(object) ? "pages" : "username" in object ? "users" : "tweets";
  switch (kind) {
    case "pages":
      if (!isPage(object)) throw new Refusal("not an X API v2 page (no data, includes, meta or errors)");
      readPage(object, into);
      break;
    case "users":
      into.user(object);
      break;
    case "tweets":
      readTweet(object, into);
      break;
  }
  return into;
}
