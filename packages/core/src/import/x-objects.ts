// X API v2 tweet and user objects, as collectors store them, mapped onto the model. X leaves out every
// field the request did not ask for, so each one has a rule for when it is missing (docs/operations.md
// lists them under "Importing X API v2 archives"); an object that cannot become a model object at all
// (no id, an id that is not one, no text) is refused with the reason, and what is made is checked
// against the model's schema, so nothing the API could not serve is ever stored.
import * as v from "valibot";
import {
  type ReferencedTweet,
  type Tweet,
  Tweet as TweetSchema,
  USERNAME_PATTERN,
  type UserLookup,
  UserLookup as UserLookupSchema,
  X_FIELDS,
} from "../model.ts";
import { MAX_ID } from "../params.ts";
import { attachedMedia, modelMedia, tweetXFields, userXFields } from "./x-fields.ts";
import {
  count,
  each,
  isCount,
  isObject,
  isWebUrl,
  isXId,
  type Json,
  mentions,
  Refusal,
  storable,
  tags,
  text,
  urls,
} from "./x-values.ts";

export { isXId, Refusal } from "./x-values.ts";

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

/** The parts of an X user object that a copy may give or leave out, each filled in from one copy. */
export const USER_PARTS = [
  "name",
  "description",
  "created_at",
  "verified",
  "verified_type",
  "protected",
  "profile_image_url",
  "followers_count",
  "following_count",
  "tweet_count",
  "listed_count",
  "media_count",
  "url",
  "location",
  "entities",
  "pinned_tweet_id",
  "withheld",
] as const;
export type UserPart = (typeof USER_PARTS)[number];

/** The parts of an X tweet object that a copy may give or leave out (its text it always gives). */
export const TWEET_PARTS = [
  "text",
  "created_at",
  "lang",
  "conversation_id",
  "possibly_sensitive",
  "like_count",
  "retweet_count",
  "reply_count",
  "quote_count",
  "bookmark_count",
  "entities",
  "display_text_range",
  "referenced_tweets",
  "in_reply_to_user_id",
  "attachments",
  "withheld",
] as const;
export type TweetPart = (typeof TWEET_PARTS)[number];

/** A user ready to store, with the parts its object gave (the rest are the missing-field defaults). */
export interface ImportedUser {
  user: UserLookup;
  given: ReadonlySet<UserPart>;
}

/** A tweet ready to store, with how many versions its edit history names (1 for an unedited post). */
export interface ImportedTweet {
  tweet: Tweet;
  versions: number;
  given: ReadonlySet<TweetPart>;
}

/** Finds a user's id by username (case-insensitively): the page's users, then the world's. */
export type UsernameIds = (username: string) => string | undefined;

const NO_USERNAMES: UsernameIds = () => undefined;

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
  if (typeof value === "string" && /^\d+$/.test(value)) {
    return `${describe(value)} is above the largest id accepted (${MAX_ID})`;
  }
  return `${describe(value)} is not digits (a 64-bit id)`;
}

/** The id of `object` (a `what`), or the refusal naming what is wrong with it. */
function idOfObject(object: Json, what: string): string {
  if (!("id" in object)) throw new Refusal(`${what} without id`);
  if (!isXId(object.id)) throw new Refusal(`${what} id ${notAnId(object.id)}`);
  return object.id;
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

/** `made` checked against `schema`: a mapping the model would not accept is refused, never stored. */
function checked<T>(schema: v.GenericSchema<T>, made: T, what: string): T {
  const result = v.safeParse(schema, made);
  if (result.success) return result.output;
  const issue = result.issues[0];
  const path = issue.path?.map((item) => String(item.key)).join(".");
  throw new Refusal(`${what} does not fit the model${path ? ` at ${path}` : ""}: ${issue.message}`);
}

const REFERENCE_TYPES = new Set(["replied_to", "quoted", "retweeted"]);

function references(value: unknown): ReferencedTweet[] {
  return each(value, (element) =>
    typeof element.type === "string" && REFERENCE_TYPES.has(element.type) && isXId(element.id)
      ? { type: element.type as ReferencedTweet["type"], id: element.id }
      : undefined,
  );
}

/**
 * The parts `object` gives: by default a part is given when the field of its name is present; `gives`
 * decides the parts whose field alone does not say that they hold something to keep.
 */
function givenParts<P extends string>(object: Json, parts: readonly P[], gives: Partial<Record<P, boolean>>): Set<P> {
  return new Set(parts.filter((part) => gives[part] ?? part in object));
}

/** Which of `names` `metrics` (an object's public_metrics) gives a count of: each metric is a part of its own. */
function givenMetrics<P extends string>(metrics: Json | undefined, names: readonly P[]): Partial<Record<P, boolean>> {
  return Object.fromEntries(names.map((name) => [name, isCount(metrics?.[name])])) as Partial<Record<P, boolean>>;
}

const USER_METRICS = ["followers_count", "following_count", "tweet_count", "listed_count", "media_count"] as const;
const TWEET_METRICS = ["like_count", "retweet_count", "reply_count", "quote_count", "bookmark_count"] as const;

/** An X API v2 user object as a user of the model. */
export function importedUser(object: unknown): ImportedUser {
  if (!isObject(object)) throw new Refusal("a user that is not a JSON object");
  const id = idOfObject(object, "a user");
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
  const made = checked(UserLookupSchema, user, what);
  const x = userXFields(object, what);
  return {
    user: Object.keys(x).length > 0 ? { ...made, [X_FIELDS]: x } : made,
    given: givenParts(object, USER_PARTS, {
      verified: typeof object.verified === "boolean",
      verified_type: typeof object.verified_type === "string",
      ...givenMetrics(metrics, USER_METRICS),
    }),
  };
}

/**
 * An X API v2 tweet object as a tweet of the model; `media` is the page's `includes.media` by key, and
 * `idOf` resolves mentions X gave by username alone. A long post's full text is its `note_tweet.text`,
 * with the note's entities when it has them.
 */
export function importedTweet(
  object: unknown,
  media: ReadonlyMap<string, Json> = new Map(),
  idOf: UsernameIds = NO_USERNAMES,
): ImportedTweet {
  if (!isObject(object)) throw new Refusal("a tweet that is not a JSON object");
  const id = idOfObject(object, "a tweet");
  const what = `tweet ${id}`;
  const note =
    isObject(object.note_tweet) && typeof object.note_tweet.text === "string" ? object.note_tweet : undefined;
  if (note === undefined && typeof object.text !== "string") {
    throw new Refusal(
      `${what} without text${isObject(object.withheld) ? " (withheld, and its text was not given)" : ""}`,
    );
  }
  if (!("author_id" in object)) {
    throw new Refusal(
      `${what} without author_id: its author is not in its page (fetch it with tweet.fields=author_id)`,
    );
  }
  if (!isXId(object.author_id)) throw new Refusal(`${what}'s author_id ${notAnId(object.author_id)}`);
  const createdAt = createdAtOf(object, id, what);
  if (createdAt === undefined) {
    throw new Refusal(`${what} without created_at, and its id is older than the ids that tell their time`);
  }
  const metrics = isObject(object.public_metrics) ? object.public_metrics : {};
  const referenced = references(object.referenced_tweets);
  const quoted = referenced.find((reference) => reference.type === "quoted")?.id;
  const attached = attachedMedia(object.attachments, media);
  const shown = attached === undefined ? [] : modelMedia(attached);
  const range = object.display_text_range;
  const source = note !== undefined && isObject(note.entities) ? note.entities : object.entities;
  const entities = isObject(source) ? source : {};
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
    entities: {
      hashtags: tags(entities.hashtags, "a hashtag"),
      urls: urls(entities.urls),
      mentions: mentions(entities.mentions, idOf),
    },
    ...(isXId(object.in_reply_to_user_id) ? { in_reply_to_user_id: object.in_reply_to_user_id } : {}),
    ...(referenced.length > 0 ? { referenced_tweets: referenced } : {}),
    ...(Array.isArray(range) && range.length === 2 && range.every((n) => count(n) === n)
      ? { display_text_range: [range[0], range[1]] as [number, number] }
      : {}),
    ...(quoted === undefined ? {} : { quoted_tweet_id: quoted }),
    ...(shown.length > 0 ? { media: shown } : {}),
  };
  const history = object.edit_history_tweet_ids;
  const versions = Array.isArray(history) ? Math.max(1, history.filter(isXId).length) : 1;
  const made = checked(TweetSchema, tweet, what);
  const x = tweetXFields(object, source, attached, note !== undefined);
  return {
    tweet: Object.keys(x).length > 0 ? { ...made, [X_FIELDS]: x } : made,
    versions,
    given: givenParts(object, TWEET_PARTS, {
      text: true,
      entities: "entities" in object || note !== undefined,
      referenced_tweets: Array.isArray(object.referenced_tweets),
      in_reply_to_user_id: isXId(object.in_reply_to_user_id),
      // Only the media the page resolved: a copy in includes.tweets often names keys the page left out.
      attachments: attached !== undefined,
      ...givenMetrics(metrics, TWEET_METRICS),
    }),
  };
}
