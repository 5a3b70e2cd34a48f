// The domain model of SPEC.md ("Resources and their fields"). Every surface validates what it serves
// against these schemas, and the OpenAPI document and MCP output schemas are generated from them.
import * as v from "valibot";

export const ID_PATTERN = /^\d+$/;
export const USERNAME_PATTERN = /^[A-Za-z0-9_]{1,15}$/;
/** ISO 8601 UTC with milliseconds, exactly as `Date.prototype.toISOString` prints it. */
export const TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const Id = v.pipe(v.string(), v.regex(ID_PATTERN));
const Timestamp = v.pipe(v.string(), v.regex(TIMESTAMP_PATTERN));
const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
const Url = v.pipe(v.string(), v.url());

// Entity element shapes are "not shown" in SPEC.md; they follow X API v2 (end exclusive, offsets in
// Unicode code points) so the /2 layer can pass them through unchanged.
export const HashtagEntity = v.object({ start: Count, end: Count, tag: v.string() });
export const UrlEntity = v.object({
  start: Count,
  end: Count,
  url: Url,
  expanded_url: Url,
  display_url: v.string(),
});
// An imported mention whose user the world does not know yet has no id: X pages give mentions by
// username, and the id is filled in when that user is imported (docs/operations.md).
export const MentionEntity = v.object({ start: Count, end: Count, username: v.string(), id: v.exactOptional(Id) });
export const Entities = v.object({
  hashtags: v.array(HashtagEntity),
  urls: v.array(UrlEntity),
  mentions: v.array(MentionEntity),
});

export const ReferencedTweetType = v.picklist(["replied_to", "quoted", "retweeted"]);
export const ReferencedTweet = v.object({ type: ReferencedTweetType, id: Id });
export const Media = v.object({ type: v.picklist(["photo", "video", "animated_gif"]), url: Url });

export const Tweet = v.object({
  id: Id,
  text: v.string(),
  author_id: Id,
  created_at: Timestamp,
  lang: v.string(),
  conversation_id: Id,
  possibly_sensitive: v.boolean(),
  like_count: Count,
  retweet_count: Count,
  reply_count: Count,
  quote_count: Count,
  bookmark_count: Count,
  is_quote_status: v.boolean(),
  entities: Entities,
  in_reply_to_user_id: v.exactOptional(Id),
  referenced_tweets: v.exactOptional(v.array(ReferencedTweet)),
  display_text_range: v.exactOptional(v.tuple([Count, Count])),
  quoted_tweet_id: v.exactOptional(Id),
  media: v.exactOptional(v.array(Media)),
});

export const User = v.object({
  id: Id,
  username: v.pipe(v.string(), v.regex(USERNAME_PATTERN)),
  name: v.string(),
  description: v.string(),
  created_at: Timestamp,
  verified: v.boolean(),
  protected: v.boolean(),
  profile_image_url: Url,
  follower_count: Count,
  following_count: Count,
  tweet_count: Count,
  media_count: v.exactOptional(Count),
});

export const UserLookup = v.object({ ...User.entries, status: v.picklist(["active", "suspended", "deactivated"]) });

export const IdObject = v.object({ id: Id });

export const Relationship = v.object({
  source_user_id: Id,
  source_username: v.string(),
  target_user_id: Id,
  target_username: v.string(),
  following: v.boolean(),
  followed_by: v.boolean(),
});

export const Community = v.object({
  id: Id,
  name: v.string(),
  description: v.string(),
  member_count: Count,
});

// Trends: the shape is "not shown" in SPEC.md. Modelled on the public trends APIs: the trend's name,
// the query that finds its posts, its rank in the location and its recent post volume.
export const Trend = v.object({
  woeid: v.string(),
  rank: v.pipe(v.number(), v.integer(), v.minValue(1)),
  name: v.string(),
  query: v.string(),
  tweet_count: Count,
});

export const TextBlock = v.object({ type: v.picklist(["heading_2", "paragraph"]), text: v.string() });
export const ImageBlock = v.object({
  type: v.literal("image"),
  image_url: Url,
  width: v.pipe(v.number(), v.integer(), v.minValue(1)),
  height: v.pipe(v.number(), v.integer(), v.minValue(1)),
});
export const ContentBlock = v.variant("type", [TextBlock, ImageBlock]);

export const ArticleAuthor = v.pick(User, [
  "id",
  "username",
  "name",
  "description",
  "verified",
  "protected",
  "profile_image_url",
  "follower_count",
  "following_count",
  "tweet_count",
]);

export const Article = v.object({
  tweet_id: Id,
  title: v.string(),
  preview_text: v.string(),
  cover_image_url: Url,
  created_at: Timestamp,
  content: v.array(ContentBlock),
  metrics: v.object({
    like_count: Count,
    reply_count: Count,
    quote_count: Count,
    bookmark_count: Count,
    view_count: Count,
  }),
  author: ArticleAuthor,
});

export const Thread = v.object({
  conversation_id: Id,
  author_id: Id,
  complete: v.boolean(),
  tweets: v.array(Tweet),
});

export const Profile = v.object({ user: UserLookup, recent_tweets: v.array(Tweet) });

export const TweetContext = v.object({
  tweet: Tweet,
  author: User,
  quotes: v.array(Tweet),
  retweeters: v.array(User),
});

export const EnrichedSearch = v.object({ tweets: v.array(Tweet), authors: v.array(User) });

/** How many tweets matched in [start, end). */
export const CountBucket = v.object({ start: Timestamp, end: Timestamp, tweet_count: Count });

/** A query's counts in [start, end), oldest bucket first, and their sum. */
export const SearchCounts = v.object({
  start: Timestamp,
  end: Timestamp,
  total_tweet_count: Count,
  counts: v.array(CountBucket),
});

export type Entities = v.InferOutput<typeof Entities>;
export type ReferencedTweet = v.InferOutput<typeof ReferencedTweet>;
export type Media = v.InferOutput<typeof Media>;
export type Tweet = v.InferOutput<typeof Tweet> & { [X_FIELDS]?: TweetXFields };
export type User = v.InferOutput<typeof User> & { [X_FIELDS]?: UserXFields };
export type UserLookup = v.InferOutput<typeof UserLookup> & { [X_FIELDS]?: UserXFields };
export type IdObject = v.InferOutput<typeof IdObject>;
export type Relationship = v.InferOutput<typeof Relationship>;
export type Community = v.InferOutput<typeof Community>;
export type Trend = v.InferOutput<typeof Trend>;
export type ContentBlock = v.InferOutput<typeof ContentBlock>;
export type Article = v.InferOutput<typeof Article>;
export type Thread = v.InferOutput<typeof Thread>;
export type Profile = v.InferOutput<typeof Profile>;
export type TweetContext = v.InferOutput<typeof TweetContext>;
export type EnrichedSearch = v.InferOutput<typeof EnrichedSearch>;
export type CountBucket = v.InferOutput<typeof CountBucket>;
export type SearchCounts = v.InferOutput<typeof SearchCounts>;

/**
 * What an imported X object said beyond SPEC.md's Tweet and User, kept for /2 alone. It is held under a
 * symbol key: JSON has no symbol keys, so /v1, MCP and every other surface that serializes the model
 * never show it, while a spread or a rest copy of the object keeps it for /2.
 */
export const X_FIELDS: unique symbol = Symbol("x-fields");

/** A media object as X's `includes.media` gives it, with the fields this service keeps. */
export interface XMedia {
  media_key: string;
  type: string;
  url?: string;
  preview_image_url?: string;
  width?: number;
  height?: number;
  alt_text?: string;
  duration_ms?: number;
}

/** X's `withheld`: where a post or account is withheld, and why. */
export interface XWithheld {
  copyright?: boolean;
  country_codes: string[];
  scope?: string;
}

export interface CashtagEntity {
  start: number;
  end: number;
  tag: string;
}

export interface TweetXFields {
  cashtags?: CashtagEntity[];
  /** The attached media in `attachments.media_keys` order. */
  media?: XMedia[];
  /** Given when it names more than the post itself (an edited post). */
  edit_history_tweet_ids?: string[];
  /**
   * Given when the text is a long post's `note_tweet.text`: a copy fetched without note_tweet holds only
   * its first 280 characters or so, and must not replace it (import/freshness.ts).
   */
  text_from_note_tweet?: true;
  withheld?: XWithheld;
}

/** X's user `entities`: the urls of the profile's url, and the entities of its description. */
export interface XUserEntities {
  url?: { urls: Entities["urls"] };
  description?: Partial<Entities> & { cashtags?: CashtagEntity[] };
}

export interface UserXFields {
  url?: string;
  location?: string;
  entities?: XUserEntities;
  pinned_tweet_id?: string;
  listed_count?: number;
  verified_type?: string;
  withheld?: XWithheld;
}

/** A looked-up user as lists and joins show users: without its lookup status. */
export function plainUser({ status: _status, ...user }: UserLookup): User {
  return user;
}

/** The author of an article: the user's fields that ArticleAuthor keeps, in its order. */
export function articleAuthor(user: User): Article["author"] {
  const { id, username, name, description, verified, profile_image_url } = user;
  const { follower_count, following_count, tweet_count } = user;
  return {
    id,
    username,
    name,
    description,
    verified,
    protected: user.protected,
    profile_image_url,
    follower_count,
    following_count,
    tweet_count,
  };
}
