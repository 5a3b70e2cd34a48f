// X API v2's expansions: every name X defines for a resource is accepted, and those this service holds
// data for are served in `includes`: the authors of the tweets, the tweets they reference and those
// tweets' authors, the users they reply to and mention (a mention of a user the world does not hold
// expands to nothing, as X's does for an unknown user), their media, and users' pinned tweets. Names
// with nothing behind them here (polls, places, …) are accepted and left out, as X leaves out what a
// post lacks.
// What the expansions name is read before the charge, as part of the request: a failure leaves it
// uncharged, and the reads are not charged on their own.
import { plainUser, type Store, type Tweet, type User, X_FIELDS, type XMedia } from "@social/core";
import type { TweetField, UserField } from "./fields.ts";

/** X API v2's expansions of tweet reads (its OpenAPI document, 2.159). */
export const TWEET_EXPANSIONS = [
  "article.cover_media",
  "article.media_entities",
  "attachments.media_keys",
  "attachments.media_source_tweet",
  "attachments.poll_ids",
  "author_id",
  "edit_history_tweet_ids",
  "entities.mentions.username",
  "entities.note.mentions.username",
  "geo.place_id",
  "in_reply_to_user_id",
  "referenced_tweets.id",
  "referenced_tweets.id.attachments.media_keys",
  "referenced_tweets.id.author_id",
] as const;

/** X API v2's expansions of user reads. */
export const USER_EXPANSIONS = ["affiliation.user_id", "most_recent_tweet_id", "pinned_tweet_id"] as const;

export type TweetExpansion = (typeof TWEET_EXPANSIONS)[number];
export type Expansion = TweetExpansion | (typeof USER_EXPANSIONS)[number];

/**
 * The tweet field an expansion's ids are in, which X puts in the tweet when the expansion is asked for,
 * so a client can join a tweet (an included one too) to what was included.
 */
export const FIELD_OF_EXPANSION: Partial<Record<Expansion, TweetField>> = {
  author_id: "author_id",
  "attachments.media_keys": "attachments",
  "entities.mentions.username": "entities",
  in_reply_to_user_id: "in_reply_to_user_id",
  "referenced_tweets.id": "referenced_tweets",
  "referenced_tweets.id.author_id": "author_id",
  "referenced_tweets.id.attachments.media_keys": "attachments",
};

/** The user field an expansion of users' ids is in, which X puts in the user when it is asked for. */
export const USER_FIELD_OF_EXPANSION: Partial<Record<Expansion, UserField>> = { pinned_tweet_id: "pinned_tweet_id" };

type MediaType = NonNullable<Tweet["media"]>[number]["type"];

/** X API v2's media-key prefixes: 3 photos, 7 videos, 16 animated GIFs. */
const MEDIA_KEY_PREFIX: Record<MediaType, number> = { photo: 3, video: 7, animated_gif: 16 };

/**
 * A tweet's media with their keys: an imported tweet's as X gave them; the generated world's, which
 * has none, with stable keys made of its type's prefix, the tweet's id and the item's place. X gives a
 * photo's address as url, a video's or GIF's still as preview_image_url.
 */
export function keyedMedia(tweet: Tweet): XMedia[] {
  const kept = tweet[X_FIELDS]?.media;
  if (kept !== undefined) return kept;
  return (tweet.media ?? []).map((item, index) => ({
    media_key: `${MEDIA_KEY_PREFIX[item.type]}_${tweet.id}${index === 0 ? "" : `_${index}`}`,
    type: item.type,
    ...(item.type === "photo" ? { url: item.url } : { preview_image_url: item.url }),
  }));
}

/** What the expansions asked for add to a read of tweets: tweets, users and media, each once. */
export interface Included {
  users: readonly User[];
  tweets: readonly Tweet[];
  media: readonly XMedia[];
}

export const NOTHING_INCLUDED: Included = { users: [], tweets: [], media: [] };

/** The ids of the tweets `tweet` references, as X lists them (a quote's target among them). */
export function referencedIds(tweet: Tweet): string[] {
  const ids = (tweet.referenced_tweets ?? []).map((reference) => reference.id);
  if (tweet.quoted_tweet_id !== undefined) ids.push(tweet.quoted_tweet_id);
  return [...new Set(ids)];
}

function unique<T>(items: readonly T[], key: (item: T) => string): T[] {
  const byKey = new Map<string, T>();
  for (const item of items) if (!byKey.has(key(item))) byKey.set(key(item), item);
  return [...byKey.values()];
}

const REFERENCE_EXPANSIONS: readonly Expansion[] = [
  "referenced_tweets.id",
  "referenced_tweets.id.author_id",
  "referenced_tweets.id.attachments.media_keys",
];

/** Reads what `expansions` name for `tweets`; users come in the order X's clients join them: authors first. */
export async function includedFor(
  store: Store,
  tweets: readonly Tweet[],
  expansions: ReadonlySet<Expansion>,
): Promise<Included> {
  if (tweets.length === 0 || expansions.size === 0) return NOTHING_INCLUDED;
  // A referenced tweet is included even when the page shows it too: clients look references up in
  // includes.tweets alone (twitter-api-v2's includes.quote(), twarc2's flatten).
  const referenced = REFERENCE_EXPANSIONS.some((name) => expansions.has(name))
    ? await store.tweetsByIds(unique(tweets.flatMap(referencedIds), String))
    : [];
  const userIds = [
    ...(expansions.has("author_id") ? tweets.map((tweet) => tweet.author_id) : []),
    ...(expansions.has("referenced_tweets.id.author_id") ? referenced.map((tweet) => tweet.author_id) : []),
    ...(expansions.has("in_reply_to_user_id") ? tweets.flatMap((tweet) => tweet.in_reply_to_user_id ?? []) : []),
    ...(expansions.has("entities.mentions.username")
      ? tweets.flatMap((tweet) => tweet.entities.mentions.flatMap((mention) => mention.id ?? []))
      : []),
  ];
  const users = userIds.length === 0 ? [] : (await store.usersByIds(unique(userIds, String))).map(plainUser);
  const media = [
    ...(expansions.has("attachments.media_keys") ? tweets.flatMap(keyedMedia) : []),
    ...(expansions.has("referenced_tweets.id.attachments.media_keys") ? referenced.flatMap(keyedMedia) : []),
  ];
  return {
    users,
    tweets: expansions.has("referenced_tweets.id") ? referenced : [],
    media: unique(media, (item) => item.media_key),
  };
}

/** What the expansions asked for add to a read of users: their pinned tweets. */
export async function includedForUsers(
  store: Store,
  users: readonly User[],
  expansions: ReadonlySet<Expansion>,
): Promise<Included> {
  if (!expansions.has("pinned_tweet_id")) return NOTHING_INCLUDED;
  const ids = users.flatMap((user) => user[X_FIELDS]?.pinned_tweet_id ?? []);
  if (ids.length === 0) return NOTHING_INCLUDED;
  return { users: [], tweets: await store.tweetsByIds(unique(ids, String)), media: [] };
}
