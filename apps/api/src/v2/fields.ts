// Tweets and users in X API v2's shape: the default fields always, the requested ones mapped from this
// service's model and from what an imported object said beyond it (model.ts's X_FIELDS: cashtags,
// media objects, edit history, withheld, the profile's url, location, entities, pinned post, list count
// and verification type). Every value X API v2 accepts in tweet.fields and user.fields is accepted; a
// field this service holds no data for (context_annotations, geo, ...) is left out, as X leaves out a
// field a post has no value for.
import { type Tweet, type User, X_FIELDS, type XMedia } from "@social/core";
import { keyedMedia } from "./expansions.ts";

// X API v2's values, with the newer names @xdevplatform/xdk also sends (article_title, note_post, ...).
export const TWEET_FIELDS = [
  "article",
  "article_title",
  "attachments",
  "author_id",
  "card_uri",
  "community_id",
  "context_annotations",
  "conversation_id",
  "created_at",
  "display_text_range",
  "edit_controls",
  "edit_history_tweet_ids",
  "entities",
  "geo",
  "id",
  "in_reply_to_user_id",
  "lang",
  "matched_media_notes",
  "media_metadata",
  "non_public_metrics",
  "note_post",
  "note_request_suggestions",
  "note_tweet",
  "organic_metrics",
  "paid_partnership",
  "possibly_sensitive",
  "promoted_metrics",
  "public_metrics",
  "referenced_tweets",
  "reply_settings",
  "scopes",
  "source",
  "suggested_source_links",
  "suggested_source_links_with_counts",
  "text",
  "withheld",
] as const;

export const USER_FIELDS = [
  "affiliation",
  "confirmed_email",
  "connection_status",
  "created_at",
  "description",
  "entities",
  "id",
  "is_identity_verified",
  "location",
  "most_recent_tweet_id",
  "name",
  "parody",
  "pinned_tweet_id",
  "profile_banner_url",
  "profile_image_url",
  "protected",
  "public_metrics",
  "receives_your_dm",
  "subscribes_to_you",
  "subscription",
  "subscription_type",
  "url",
  "username",
  "verified",
  "verified_followers_count",
  "verified_type",
  "withheld",
] as const;

export const MEDIA_FIELDS = [
  "alt_text",
  "duration_ms",
  "height",
  "media_key",
  "non_public_metrics",
  "organic_metrics",
  "preview_image_url",
  "promoted_metrics",
  "public_metrics",
  "type",
  "url",
  "variants",
  "width",
] as const;

/** Accepted for X API v2 code that always sends them; this service holds no polls nor places. */
export const POLL_FIELDS = ["duration_minutes", "end_datetime", "id", "options", "voting_status"] as const;
export const PLACE_FIELDS = [
  "contained_within",
  "country",
  "country_code",
  "full_name",
  "geo",
  "id",
  "name",
  "place_type",
] as const;

export type TweetField = (typeof TWEET_FIELDS)[number];
export type UserField = (typeof USER_FIELDS)[number];
export type MediaField = (typeof MEDIA_FIELDS)[number];

type Json = Record<string, unknown>;

/** Requested tweet fields this service has data for, in X API v2's member names. */
const TWEET_VALUES: Partial<Record<TweetField, (tweet: Tweet) => unknown>> = {
  author_id: (tweet) => tweet.author_id,
  conversation_id: (tweet) => tweet.conversation_id,
  created_at: (tweet) => tweet.created_at,
  display_text_range: (tweet) => tweet.display_text_range,
  entities: tweetEntities,
  in_reply_to_user_id: (tweet) => tweet.in_reply_to_user_id,
  lang: (tweet) => tweet.lang,
  possibly_sensitive: (tweet) => tweet.possibly_sensitive,
  public_metrics: (tweet) => ({
    retweet_count: tweet.retweet_count,
    reply_count: tweet.reply_count,
    like_count: tweet.like_count,
    quote_count: tweet.quote_count,
    bookmark_count: tweet.bookmark_count,
    // Views are not tracked for tweets; X API v2 also reports 0 for posts it has no view count for.
    impression_count: 0,
  }),
  referenced_tweets: referencedTweets,
  withheld: (tweet) => tweet[X_FIELDS]?.withheld,
  attachments: (tweet) => {
    const media = keyedMedia(tweet);
    return media.length > 0 ? { media_keys: media.map((item) => item.media_key) } : undefined;
  },
};

const MEDIA_VALUES: Partial<Record<MediaField, (media: XMedia) => unknown>> = {
  url: (media) => media.url,
  preview_image_url: (media) => media.preview_image_url,
  width: (media) => media.width,
  height: (media) => media.height,
  alt_text: (media) => media.alt_text,
  duration_ms: (media) => media.duration_ms,
};

const USER_VALUES: Partial<Record<UserField, (user: User) => unknown>> = {
  created_at: (user) => user.created_at,
  description: (user) => user.description,
  profile_image_url: (user) => user.profile_image_url,
  protected: (user) => user.protected,
  public_metrics: (user) => ({
    followers_count: user.follower_count,
    following_count: user.following_count,
    tweet_count: user.tweet_count,
    // The generated world counts no list memberships per user; an imported user has X's count.
    listed_count: user[X_FIELDS]?.listed_count ?? 0,
    ...(user.media_count === undefined ? {} : { media_count: user.media_count }),
  }),
  verified: (user) => user.verified,
  verified_type: (user) => user[X_FIELDS]?.verified_type ?? (user.verified ? "blue" : "none"),
  url: (user) => user[X_FIELDS]?.url,
  location: (user) => user[X_FIELDS]?.location,
  entities: (user) => user[X_FIELDS]?.entities,
  pinned_tweet_id: (user) => user[X_FIELDS]?.pinned_tweet_id,
  withheld: (user) => user[X_FIELDS]?.withheld,
};

/** X API v2 lists only the entity kinds a post has, and no entities member when it has none. */
function tweetEntities(tweet: Tweet): Json | undefined {
  const { hashtags, urls, mentions } = tweet.entities;
  const cashtags = tweet[X_FIELDS]?.cashtags ?? [];
  const present = Object.entries({ hashtags, cashtags, urls, mentions }).filter(([, items]) => items.length > 0);
  return present.length > 0 ? Object.fromEntries(present) : undefined;
}

/** The model keeps a quote's target apart (quoted_tweet_id); X API v2 lists it among the references. */
function referencedTweets(tweet: Tweet): Tweet["referenced_tweets"] {
  const references = [...(tweet.referenced_tweets ?? [])];
  const quoted = tweet.quoted_tweet_id;
  if (quoted && !references.some((reference) => reference.type === "quoted" && reference.id === quoted)) {
    references.push({ type: "quoted", id: quoted });
  }
  return references.length > 0 ? references : undefined;
}

function withFields<T, F extends string>(
  base: Json,
  item: T,
  fields: ReadonlySet<F>,
  values: Partial<Record<F, (item: T) => unknown>>,
): Json {
  const rendered: Json = { ...base };
  for (const field of fields) {
    const value = values[field]?.(item);
    if (value !== undefined) rendered[field] = value;
  }
  return rendered;
}

export function v2Tweet(tweet: Tweet, fields: ReadonlySet<TweetField>): Json {
  return withFields(
    { id: tweet.id, text: tweet.text, edit_history_tweet_ids: tweet[X_FIELDS]?.edit_history_tweet_ids ?? [tweet.id] },
    tweet,
    fields,
    TWEET_VALUES,
  );
}

export function v2User(user: User, fields: ReadonlySet<UserField>): Json {
  return withFields({ id: user.id, name: user.name, username: user.username }, user, fields, USER_VALUES);
}

export function v2Media(media: XMedia, fields: ReadonlySet<MediaField>): Json {
  return withFields({ media_key: media.media_key, type: media.type }, media, fields, MEDIA_VALUES);
}
