// How a copy of a user or tweet the world (or the same import) already holds is filled in by another.
// X's objects carry no time they were fetched at and leave out every field the request did not ask
// for, so copies are merged part by part (x-objects.ts's USER_PARTS and TWEET_PARTS, each metric a part
// of its own): a part the later copy in import order gives is taken from it (its counts, its profile),
// a part it leaves out is kept from the earlier one. Attached media are merged by media key: the later
// copy's objects replace those with the same key, and keys it did not resolve keep the earlier ones.
// A tweet's text, edit history and the entities and display range that belong to that text come from
// the copy whose edit history is longer: a copy fetched before an edit must not bring the old text
// back. When they are as long the later copy's text wins, unless only the earlier one's came from a
// long post's note_tweet: without note_tweet X cuts a long post's text short. A merge that changes
// nothing keeps the stored copy, so importing the same file again changes nothing.
import {
  type Tweet,
  Tweet as TweetSchema,
  type TweetXFields,
  type UserLookup,
  UserLookup as UserLookupSchema,
  type UserXFields,
  X_FIELDS,
  type XMedia,
} from "../model.ts";
import type { OutcomeCounts } from "../ports/world-import.ts";
import { modelMedia } from "./x-fields.ts";
import {
  type ImportedTweet,
  type ImportedUser,
  TWEET_PARTS,
  type TweetPart,
  USER_PARTS,
  type UserPart,
} from "./x-objects.ts";

/** What an import did with one object. */
export type ImportOutcome = "added" | "updated" | "kept";

export function noOutcomes(): OutcomeCounts {
  return { added: 0, updated: 0, kept: 0 };
}

type Fields<Model, X> = { model: readonly (keyof Model)[]; x: readonly (keyof X)[] };

const USER_FIELDS: Record<UserPart, Fields<UserLookup, UserXFields>> = {
  name: { model: ["name"], x: [] },
  description: { model: ["description"], x: [] },
  created_at: { model: ["created_at"], x: [] },
  verified: { model: ["verified"], x: [] },
  verified_type: { model: [], x: ["verified_type"] },
  protected: { model: ["protected"], x: [] },
  profile_image_url: { model: ["profile_image_url"], x: [] },
  followers_count: { model: ["follower_count"], x: [] },
  following_count: { model: ["following_count"], x: [] },
  tweet_count: { model: ["tweet_count"], x: [] },
  listed_count: { model: [], x: ["listed_count"] },
  media_count: { model: ["media_count"], x: [] },
  url: { model: [], x: ["url"] },
  location: { model: [], x: ["location"] },
  entities: { model: [], x: ["entities"] },
  pinned_tweet_id: { model: [], x: ["pinned_tweet_id"] },
  withheld: { model: [], x: ["withheld"] },
};

const TWEET_FIELDS: Record<TweetPart, Fields<Tweet, TweetXFields>> = {
  text: { model: ["text"], x: ["edit_history_tweet_ids", "text_from_note_tweet"] },
  created_at: { model: ["created_at"], x: [] },
  lang: { model: ["lang"], x: [] },
  conversation_id: { model: ["conversation_id"], x: [] },
  possibly_sensitive: { model: ["possibly_sensitive"], x: [] },
  like_count: { model: ["like_count"], x: [] },
  retweet_count: { model: ["retweet_count"], x: [] },
  reply_count: { model: ["reply_count"], x: [] },
  quote_count: { model: ["quote_count"], x: [] },
  bookmark_count: { model: ["bookmark_count"], x: [] },
  entities: { model: ["entities"], x: ["cashtags"] },
  display_text_range: { model: ["display_text_range"], x: [] },
  referenced_tweets: { model: ["referenced_tweets", "quoted_tweet_id", "is_quote_status"], x: [] },
  in_reply_to_user_id: { model: ["in_reply_to_user_id"], x: [] },
  attachments: { model: ["media"], x: ["media"] },
  withheld: { model: [], x: ["withheld"] },
};

/** The parts that go with a tweet's text: they come from the copy its text comes from, when it gives them. */
const PARTS_OF_TEXT: ReadonlySet<TweetPart> = new Set(["text", "entities", "display_text_range"]);

interface Copy<Model, X, Part> {
  object: Model & { [X_FIELDS]?: X };
  given: ReadonlySet<Part>;
}

/**
 * `order` lists the model's keys in the order objects are written, so that a merge of two equal copies
 * serializes as they do. Each part's fields come from the copy `source(part)` names.
 */
function merge<Model extends object, X extends object, Part extends string>(
  order: readonly (keyof Model)[],
  fields: Record<Part, Fields<Model, X>>,
  source: (part: Part) => Copy<Model, X, Part>,
  parts: readonly Part[],
): Model & { [X_FIELDS]?: X } {
  const sourceOf = new Map<keyof Model, Model>();
  const x: Partial<X> = {};
  for (const part of parts) {
    const from = source(part).object;
    for (const key of fields[part].model) sourceOf.set(key, from);
    for (const key of fields[part].x) {
      const value = from[X_FIELDS]?.[key];
      if (value !== undefined) x[key] = value;
    }
  }
  const merged: Partial<Model> = {};
  for (const key of order) {
    const value = (sourceOf.get(key) ?? source(parts[0] as Part).object)[key];
    if (value !== undefined) merged[key] = value;
  }
  const made = merged as Model & { [X_FIELDS]?: X };
  return Object.keys(x).length > 0 ? { ...made, [X_FIELDS]: x as X } : made;
}

function union<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): Set<T> {
  return new Set([...a, ...b]);
}

const USER_ORDER = Object.keys(UserLookupSchema.entries) as (keyof UserLookup)[];
const TWEET_ORDER = Object.keys(TweetSchema.entries) as (keyof Tweet)[];

/** `later` merged into `earlier` (the stored copy, or the one met first): see the file's head. */
export function mergeUser(earlier: ImportedUser, later: ImportedUser): ImportedUser {
  const copy = (imported: ImportedUser) => ({ object: imported.user, given: imported.given });
  const source = (part: UserPart) => copy(later.given.has(part) || !earlier.given.has(part) ? later : earlier);
  // The id, username and status are the later copy's: they are in every copy.
  const merged = merge(USER_ORDER, USER_FIELDS, source, USER_PARTS);
  return {
    user: { ...merged, id: later.user.id, username: later.user.username, status: later.user.status },
    given: union(earlier.given, later.given),
  };
}

/** Whether `copy`'s text is a long post's note_tweet.text, not the cut text X gives without it. */
function textFromNote(copy: ImportedTweet): boolean {
  return copy.tweet[X_FIELDS]?.text_from_note_tweet === true;
}

/** The copy whose text, edit history and the parts of its text a merge keeps: see the file's head. */
function copyOfText(earlier: ImportedTweet, later: ImportedTweet): ImportedTweet {
  if (later.versions !== earlier.versions) return later.versions > earlier.versions ? later : earlier;
  return textFromNote(earlier) && !textFromNote(later) ? earlier : later;
}

/** Both copies' media merged by key (see the file's head); undefined when either holds no X media objects. */
function mergedMedia(earlier: ImportedTweet, later: ImportedTweet): XMedia[] | undefined {
  const kept = earlier.tweet[X_FIELDS]?.media;
  const known = later.tweet[X_FIELDS]?.media;
  if (kept === undefined || known === undefined) return undefined;
  const keptKeys = new Set(kept.map((item) => item.media_key));
  const byKey = new Map(known.map((item) => [item.media_key, item]));
  return [
    ...kept.map((item) => byKey.get(item.media_key) ?? item),
    ...known.filter((item) => !keptKeys.has(item.media_key)),
  ];
}

/** `tweet` with `media` as its attached media: the X objects, and the model's media made of them. */
function withMedia(tweet: Tweet, media: XMedia[]): Tweet {
  const { media: _shown, ...rest } = tweet;
  const shown = modelMedia(media);
  return {
    ...rest,
    ...(shown.length > 0 ? { media: shown } : {}),
    [X_FIELDS]: { ...tweet[X_FIELDS], media },
  };
}

/** `later` merged into `earlier`: see the file's head. */
export function mergeTweet(earlier: ImportedTweet, later: ImportedTweet): ImportedTweet {
  const textCopy = copyOfText(earlier, later);
  const otherCopy = textCopy === later ? earlier : later;
  const copy = (imported: ImportedTweet) => ({ object: imported.tweet, given: imported.given });
  const source = (part: TweetPart) => {
    if (PARTS_OF_TEXT.has(part)) {
      const sameText = otherCopy.tweet.text === textCopy.tweet.text;
      return copy(textCopy.given.has(part) || !sameText || !otherCopy.given.has(part) ? textCopy : otherCopy);
    }
    return copy(later.given.has(part) || !earlier.given.has(part) ? later : earlier);
  };
  const merged = merge(TWEET_ORDER, TWEET_FIELDS, source, TWEET_PARTS);
  const media = mergedMedia(earlier, later);
  const tweet = { ...merged, id: later.tweet.id, author_id: later.tweet.author_id };
  return {
    tweet: media === undefined ? tweet : withMedia(tweet, media),
    versions: textCopy.versions,
    given: union(earlier.given, later.given),
  };
}

/** A stored user as a copy to merge into: every part of it counts as given. */
export function storedUserCopy(user: UserLookup): ImportedUser {
  return { user, given: new Set(USER_PARTS) };
}

/** A stored tweet as a copy to merge into, with the versions its edit history named. */
export function storedTweetCopy(tweet: Tweet, versions: number): ImportedTweet {
  return { tweet, versions, given: new Set(TWEET_PARTS) };
}
