// X API v2 tweet and user objects, as collectors store them, mapped onto the model. X leaves out every
// field the request did not ask for, so each one has a rule for when it is missing (docs/operations.md
// lists them under "Importing X API v2 archives"); an object that cannot become a model object at all
// (no id, an id that is not one, no text) is refused with the reason, and what is made is checked
// against the model's schema, so nothing the API could not serve is ever stored.
import * as v from "valibot";
import {
  type Entities,
  type Media,
  type ReferencedTweet,
  type Tweet,
  Tweet as TweetSchema,
  USERNAME_PATTERN,
  type UserLookup,
  UserLookup as UserLookupSchema,
} from "../model.ts";
import { MAX_ID } from "../params.ts";

type Json = Record<string, unknown>;

/** Why an object was not imported, in a sentence for the operator. */
export class Refusal {
  constructor(readonly reason: string) {}
}

/** An id a line wrote as a JSON number: its digits as written, which JSON.parse would round past 2^53. */
export class NumericId {
  constructor(readonly digits: string) {}
}

const ID_FIELD = /(^|_)id$/;

/**
 * JSON.parse's reviver for import lines: a number in an id field keeps the digits it was written with,
 * so that its refusal quotes them rather than the number JSON.parse rounded them to.
 */
export function keepNumericIds(key: string, value: unknown, context?: { source?: string }): unknown {
  return typeof value === "number" && ID_FIELD.test(key) && context?.source !== undefined
    ? new NumericId(context.source)
    : value;
}

/** A user ready to store; `metricsKnown` is false when the object had no public_metrics. */
export interface ImportedUser {
  user: UserLookup;
  metricsKnown: boolean;
}

/** A tweet ready to store, with how many versions its edit history names (1 for an unedited post). */
export interface ImportedTweet {
  tweet: Tweet;
  versions: number;
}

/** X's snowflake epoch: an id of 2010-11-04 on holds its creation time in milliseconds since then. */
const SNOWFLAKE_EPOCH_MS = 1_288_834_974_657n;
/** Ids below this were counted, not minted from the clock; above it every id is a snowflake. */
const SNOWFLAKE_FLOOR = 10n ** 15n;
/**
 * How far past this machine's clock a post's or account's time may lie (clocks disagree a little): the
 * world's clock is its newest post, and one from years ahead would make every "recent" read look there.
 */
export const FUTURE_TOLERANCE_MS = 60 * 60_000;
/** The day X opened, for accounts older than snowflake ids whose object gave no created_at. */
const X_LAUNCH = "2006-03-21T20:50:14.000Z";
/** X's own picture for an account without one, for objects that gave no profile_image_url. */
export const DEFAULT_PROFILE_IMAGE_URL =
  "https://abs.twimg.com/sticky/default_profile_images/default_profile_normal.png";

const CANONICAL_ID = /^(0|[1-9]\d{0,18})$/;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An id as X writes it (digits, within a signed 64-bit integer), up to the largest id the stores accept. */
export function isXId(value: unknown): value is string {
  return typeof value === "string" && CANONICAL_ID.test(value) && BigInt(value) <= MAX_ID;
}

/** Why `value`, which isXId refused, is no id, in words. */
function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/** Why `value`, found where an id belongs, is none: the end of a refusal's sentence. */
function notAnId(value: unknown): string {
  if (value instanceof NumericId) {
    return `${value.digits} is a JSON number: X writes ids as strings of digits ("${value.digits}"), which no JSON reader rounds`;
  }
  if (typeof value === "string" && CANONICAL_ID.test(value)) {
    return `${describe(value)} is above the largest id accepted (${MAX_ID})`;
  }
  return `${describe(value)} is not digits (a 64-bit id)`;
}

/** The id of `object` (a `what`), or the refusal naming what is wrong with it. */
function idOf(object: Json, what: string): string {
  if (!("id" in object)) throw new Refusal(`${what} without id`);
  if (!isXId(object.id)) throw new Refusal(`${what} id ${notAnId(object.id)}`);
  return object.id;
}

/** PostgreSQL's text cannot hold U+0000, and no post or profile has one. */
function storable(text: string, what: string): string {
  if (text.includes("\u0000")) throw new Refusal(`${what} holds a NUL character (U+0000)`);
  return text;
}

function text(value: unknown, what: string, fallback = ""): string {
  return typeof value === "string" ? storable(value, what) : fallback;
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : 0;
}

/** A time as the model writes it (ISO 8601 UTC with milliseconds); undefined when absent or unreadable. */
function timestamp(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/**
 * `createdAt` (ISO 8601), or the refusal of `what` when it lies past this machine's clock by more than
 * FUTURE_TOLERANCE_MS; `given` says whether the object wrote it or its id told it.
 */
function notInFuture(createdAt: string, what: string, given: boolean): string {
  if (Date.parse(createdAt) <= Date.now() + FUTURE_TOLERANCE_MS) return createdAt;
  const source = given ? "its created_at" : "the time its id tells, as it has no created_at";
  throw new Refusal(`${what} was created in the future: ${createdAt} (${source})`);
}

/** When a snowflake id was minted; undefined for an id older than snowflakes. */
export function snowflakeTime(id: string): string | undefined {
  const value = BigInt(id);
  if (value < SNOWFLAKE_FLOOR) return undefined;
  return new Date(Number((value >> 22n) + SNOWFLAKE_EPOCH_MS)).toISOString();
}

/** The object's created_at, else its snowflake id's time (undefined for an older id); refused when in the future. */
function createdAtOf(object: Json, id: string, what: string): string | undefined {
  const given = timestamp(object.created_at);
  if (given !== undefined) return notInFuture(given, what, true);
  const minted = snowflakeTime(id);
  return minted === undefined ? undefined : notInFuture(minted, what, false);
}

function isWebUrl(value: unknown): value is string {
  if (typeof value !== "string" || !URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === "https:" || protocol === "http:";
}

/** The elements of `value` that `item` makes something of; anything else is left out. */
function each<T>(value: unknown, item: (element: Json) => T | undefined): T[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((element) => {
    if (!isObject(element)) return [];
    const made = item(element);
    return made === undefined ? [] : [made];
  });
}

function span(element: Json): { start: number; end: number } | undefined {
  const { start, end } = element;
  const offset = (n: unknown) => typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
  return offset(start) && offset(end) ? { start: start as number, end: end as number } : undefined;
}

/**
 * Hashtags, urls and mentions as the model holds them. Cashtags are found in the text by search, and
 * an element without what the model needs (a mention without its user's id, a url that is no address)
 * is left out rather than made up.
 */
function entities(value: unknown): Entities {
  const source = isObject(value) ? value : {};
  return {
    hashtags: each(source.hashtags, (element) => {
      const at = span(element);
      return at && typeof element.tag === "string" ? { ...at, tag: storable(element.tag, "a hashtag") } : undefined;
    }),
    urls: each(source.urls, (element) => {
      const at = span(element);
      if (at === undefined || !isWebUrl(element.url)) return undefined;
      const expanded = isWebUrl(element.expanded_url) ? element.expanded_url : element.url;
      const display = typeof element.display_url === "string" ? element.display_url : expanded;
      return { ...at, url: element.url, expanded_url: expanded, display_url: storable(display, "a url") };
    }),
    mentions: each(source.mentions, (element) => {
      const at = span(element);
      const { username, id } = element;
      return at && typeof username === "string" && USERNAME_PATTERN.test(username) && isXId(id)
        ? { ...at, username, id }
        : undefined;
    }),
  };
}

const REFERENCE_TYPES = new Set(["replied_to", "quoted", "retweeted"]);

function references(value: unknown): ReferencedTweet[] {
  return each(value, (element) =>
    typeof element.type === "string" && REFERENCE_TYPES.has(element.type) && isXId(element.id)
      ? { type: element.type as ReferencedTweet["type"], id: element.id }
      : undefined,
  );
}

const MEDIA_TYPES = new Set(["photo", "video", "animated_gif"]);

/**
 * The media `attachments.media_keys` names, from the page's `includes.media`: a photo by its url, a
 * video or GIF by its still (preview_image_url). A key the page does not include is not known here.
 */
function attachedMedia(attachments: unknown, media: ReadonlyMap<string, Json>): Media[] {
  const keys = isObject(attachments) && Array.isArray(attachments.media_keys) ? attachments.media_keys : [];
  return keys.flatMap((key) => {
    const item = typeof key === "string" ? media.get(key) : undefined;
    if (item === undefined || typeof item.type !== "string" || !MEDIA_TYPES.has(item.type)) return [];
    const url = isWebUrl(item.url) ? item.url : isWebUrl(item.preview_image_url) ? item.preview_image_url : undefined;
    return url === undefined ? [] : [{ type: item.type as Media["type"], url }];
  });
}

/** `made` checked against `schema`: a mapping the model would not accept is refused, never stored. */
function checked<T>(schema: v.GenericSchema<T>, made: T, what: string): T {
  const result = v.safeParse(schema, made);
  if (result.success) return result.output;
  const issue = result.issues[0];
  const path = issue.path?.map((item) => String(item.key)).join(".");
  throw new Refusal(`${what} does not fit the model${path ? ` at ${path}` : ""}: ${issue.message}`);
}

/** An X API v2 user object as a user of the model. */
export function importedUser(object: unknown): ImportedUser {
  if (!isObject(object)) throw new Refusal("a user that is not a JSON object");
  const id = idOf(object, "a user");
  const what = `user ${id}`;
  const { username } = object;
  if (typeof username !== "string" || !USERNAME_PATTERN.test(username)) {
    throw new Refusal(`${what} has no username of 1 to 15 letters, digits or underscores (${describe(username)})`);
  }
  const metrics = isObject(object.public_metrics) ? object.public_metrics : undefined;
  const user: UserLookup = {
    id,
    username,
    name: text(object.name, `${what}'s name`),
    description: text(object.description, `${what}'s description`),
    created_at: createdAtOf(object, id, what) ?? X_LAUNCH,
    verified: object.verified === true,
    protected: object.protected === true,
    profile_image_url: isWebUrl(object.profile_image_url) ? object.profile_image_url : DEFAULT_PROFILE_IMAGE_URL,
    follower_count: count(metrics?.followers_count),
    following_count: count(metrics?.following_count),
    tweet_count: count(metrics?.tweet_count),
    ...(metrics !== undefined && "media_count" in metrics ? { media_count: count(metrics.media_count) } : {}),
    status: "active",
  };
  return { user: checked(UserLookupSchema, user, what), metricsKnown: metrics !== undefined };
}

/**
 * An X API v2 tweet object as a tweet of the model; `media` is the page's `includes.media` by key. A
 * long post's full text is its `note_tweet.text`, with the note's entities when it has them.
 */
export function importedTweet(object: unknown, media: ReadonlyMap<string, Json> = new Map()): ImportedTweet {
  if (!isObject(object)) throw new Refusal("a tweet that is not a JSON object");
  const id = idOf(object, "a tweet");
  const what = `tweet ${id}`;
  const note =
    isObject(object.note_tweet) && typeof object.note_tweet.text === "string" ? object.note_tweet : undefined;
  if (note === undefined && typeof object.text !== "string") {
    throw new Refusal(
      `${what} without text${isObject(object.withheld) ? " (withheld, and its text was not given)" : ""}`,
    );
  }
  if (!("author_id" in object)) throw new Refusal(`${what} without author_id`);
  if (!isXId(object.author_id)) throw new Refusal(`${what}'s author_id ${notAnId(object.author_id)}`);
  const createdAt = createdAtOf(object, id, what);
  if (createdAt === undefined) {
    throw new Refusal(`${what} without created_at, and its id is older than the ids that tell their time`);
  }
  const metrics = isObject(object.public_metrics) ? object.public_metrics : {};
  const referenced = references(object.referenced_tweets);
  const quoted = referenced.find((reference) => reference.type === "quoted")?.id;
  const attached = attachedMedia(object.attachments, media);
  const range = object.display_text_range;
  const tweet: Tweet = {
    id,
    text: storable((note?.text ?? object.text) as string, `${what}'s text`),
    author_id: object.author_id,
    created_at: createdAt,
    lang: typeof object.lang === "string" && object.lang !== "" ? storable(object.lang, `${what}'s lang`) : "und",
    // Without conversation_id a post starts a conversation of its own: a reply's root is not known.
    conversation_id: isXId(object.conversation_id) ? object.conversation_id : id,
    possibly_sensitive: object.possibly_sensitive === true,
    like_count: count(metrics.like_count),
    retweet_count: count(metrics.retweet_count),
    reply_count: count(metrics.reply_count),
    quote_count: count(metrics.quote_count),
    bookmark_count: count(metrics.bookmark_count),
    is_quote_status: quoted !== undefined,
    entities: entities(note !== undefined && isObject(note.entities) ? note.entities : object.entities),
    ...(isXId(object.in_reply_to_user_id) ? { in_reply_to_user_id: object.in_reply_to_user_id } : {}),
    ...(referenced.length > 0 ? { referenced_tweets: referenced } : {}),
    ...(Array.isArray(range) && range.length === 2 && range.every((n) => count(n) === n)
      ? { display_text_range: [range[0], range[1]] as [number, number] }
      : {}),
    ...(quoted === undefined ? {} : { quoted_tweet_id: quoted }),
    ...(attached.length > 0 ? { media: attached } : {}),
  };
  const history = object.edit_history_tweet_ids;
  const versions = Array.isArray(history) ? Math.max(1, history.filter(isXId).length) : 1;
  return { tweet: checked(TweetSchema, tweet, what), versions };
}
