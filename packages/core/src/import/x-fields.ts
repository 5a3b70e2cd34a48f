// What an X API v2 object says beyond SPEC.md's Tweet and User, kept for /2 (model.ts's X_FIELDS):
// cashtags, media objects with their own keys, edit history, withheld, and the profile's url,
// location, entities, pinned post, list count and verification type. A field the object does not give
// is not made up; an element that is not what X writes is left out.
import type { Media, TweetXFields, UserXFields, XMedia, XUserEntities, XWithheld } from "../model.ts";
import {
  count,
  isCount,
  isObject,
  isWebUrl,
  isXId,
  type Json,
  mentions,
  storable,
  tags,
  text,
  urls,
} from "./x-values.ts";

const MEDIA_TYPES = new Set(["photo", "video", "animated_gif"]);
const COUNTRY_CODE = /^[A-Z]{2}$|^XX$|^XY$/;

function withheld(value: unknown): XWithheld | undefined {
  if (!isObject(value)) return undefined;
  const codes = Array.isArray(value.country_codes)
    ? value.country_codes.filter((code): code is string => typeof code === "string" && COUNTRY_CODE.test(code))
    : [];
  return {
    ...(typeof value.copyright === "boolean" ? { copyright: value.copyright } : {}),
    country_codes: codes,
    ...(typeof value.scope === "string" ? { scope: storable(value.scope, "a withheld scope") } : {}),
  };
}

/** One of `includes.media`, with the fields kept; undefined for one without a key or a type. */
function mediaObject(item: Json): XMedia | undefined {
  const { media_key: key, type } = item;
  if (typeof key !== "string" || key === "" || typeof type !== "string") return undefined;
  return {
    media_key: storable(key, "a media key"),
    type: storable(type, "a media type"),
    ...(isWebUrl(item.url) ? { url: item.url } : {}),
    ...(isWebUrl(item.preview_image_url) ? { preview_image_url: item.preview_image_url } : {}),
    ...(isCount(item.width) ? { width: item.width } : {}),
    ...(isCount(item.height) ? { height: item.height } : {}),
    ...(typeof item.alt_text === "string" ? { alt_text: storable(item.alt_text, "a media's alt_text") } : {}),
    ...(isCount(item.duration_ms) ? { duration_ms: item.duration_ms } : {}),
  };
}

/** The media `attachments.media_keys` names that the page includes, in that order; undefined when none. */
export function attachedMedia(attachments: unknown, media: ReadonlyMap<string, Json>): XMedia[] | undefined {
  if (!isObject(attachments) || !Array.isArray(attachments.media_keys)) return undefined;
  const kept = attachments.media_keys.flatMap((key) => {
    const item = typeof key === "string" ? media.get(key) : undefined;
    const made = item === undefined ? undefined : mediaObject(item);
    return made === undefined ? [] : [made];
  });
  return kept.length > 0 ? kept : undefined;
}

/** SPEC.md's media: a photo by its url, a video or GIF by its url, else by its still (preview_image_url). */
export function modelMedia(media: readonly XMedia[]): Media[] {
  return media.flatMap((item) => {
    if (!MEDIA_TYPES.has(item.type)) return [];
    const url = item.url ?? item.preview_image_url;
    return url === undefined ? [] : [{ type: item.type as Media["type"], url }];
  });
}

/**
 * A tweet's X-only fields; `entities` is the source of its entities (a long post's note's), and
 * `fromNote` says whether its text is a long post's `note_tweet.text`.
 */
export function tweetXFields(
  object: Json,
  entities: unknown,
  media: XMedia[] | undefined,
  fromNote: boolean,
): TweetXFields {
  const cashtags = isObject(entities) ? tags(entities.cashtags, "a cashtag") : [];
  const history = Array.isArray(object.edit_history_tweet_ids) ? object.edit_history_tweet_ids.filter(isXId) : [];
  const held = withheld(object.withheld);
  return {
    ...(cashtags.length > 0 ? { cashtags } : {}),
    ...(media === undefined ? {} : { media }),
    ...(history.length > 1 ? { edit_history_tweet_ids: history } : {}),
    ...(fromNote ? { text_from_note_tweet: true as const } : {}),
    ...(held === undefined ? {} : { withheld: held }),
  };
}

/** X writes a description's mentions by username alone, and so they are kept. */
function userEntities(value: unknown): XUserEntities | undefined {
  if (!isObject(value)) return undefined;
  const entities: XUserEntities = {};
  if (isObject(value.url)) entities.url = { urls: urls(value.url.urls) };
  const description = value.description;
  if (isObject(description)) {
    const parts = {
      hashtags: tags(description.hashtags, "a hashtag"),
      cashtags: tags(description.cashtags, "a cashtag"),
      urls: urls(description.urls),
      mentions: mentions(description.mentions, () => undefined),
    };
    entities.description = Object.fromEntries(Object.entries(parts).filter(([, items]) => items.length > 0));
  }
  return entities;
}

/** A user's X-only fields. */
export function userXFields(object: Json, what: string): UserXFields {
  const metrics = isObject(object.public_metrics) ? object.public_metrics : {};
  const entities = userEntities(object.entities);
  const held = withheld(object.withheld);
  return {
    ...(typeof object.url === "string" ? { url: text(object.url, `${what}'s url`) } : {}),
    ...(typeof object.location === "string" ? { location: text(object.location, `${what}'s location`) } : {}),
    ...(entities === undefined ? {} : { entities }),
    ...(isXId(object.pinned_tweet_id) ? { pinned_tweet_id: object.pinned_tweet_id } : {}),
    ...("listed_count" in metrics ? { listed_count: count(metrics.listed_count) } : {}),
    ...(typeof object.verified_type === "string"
      ? { verified_type: storable(object.verified_type, `${what}'s verified_type`) }
      : {}),
    ...(held === undefined ? {} : { withheld: held }),
  };
}
