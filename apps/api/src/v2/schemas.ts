// The /2 bodies as valibot schemas, for the OpenAPI document: what body.ts, fields.ts and problem.ts
// produce, in X API v2's member names.
import { ErrorEnvelopeSchema } from "@social/core";
import * as v from "valibot";
import type { V2Route } from "./mapped.ts";

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
const Id = v.pipe(v.string(), v.regex(/^\d+$/));
const Offsets = { start: Count, end: Count };

const V2Tweet = v.object({
  id: Id,
  text: v.string(),
  edit_history_tweet_ids: v.array(Id),
  author_id: v.exactOptional(Id),
  conversation_id: v.exactOptional(Id),
  created_at: v.exactOptional(v.string()),
  display_text_range: v.exactOptional(v.tuple([Count, Count])),
  entities: v.exactOptional(
    v.object({
      hashtags: v.exactOptional(v.array(v.object({ ...Offsets, tag: v.string() }))),
      mentions: v.exactOptional(v.array(v.object({ ...Offsets, username: v.string(), id: Id }))),
      urls: v.exactOptional(
        v.array(v.object({ ...Offsets, url: v.string(), expanded_url: v.string(), display_url: v.string() })),
      ),
    }),
  ),
  in_reply_to_user_id: v.exactOptional(Id),
  lang: v.exactOptional(v.string()),
  possibly_sensitive: v.exactOptional(v.boolean()),
  public_metrics: v.exactOptional(
    v.object({
      retweet_count: Count,
      reply_count: Count,
      like_count: Count,
      quote_count: Count,
      bookmark_count: Count,
      impression_count: Count,
    }),
  ),
  referenced_tweets: v.exactOptional(
    v.array(v.object({ type: v.picklist(["retweeted", "quoted", "replied_to"]), id: Id })),
  ),
  attachments: v.exactOptional(v.object({ media_keys: v.array(v.string()) })),
});

const V2Media = v.object({
  media_key: v.string(),
  type: v.picklist(["photo", "video", "animated_gif"]),
  url: v.exactOptional(v.string()),
  preview_image_url: v.exactOptional(v.string()),
});

const V2User = v.object({
  id: Id,
  name: v.string(),
  username: v.string(),
  created_at: v.exactOptional(v.string()),
  description: v.exactOptional(v.string()),
  profile_image_url: v.exactOptional(v.string()),
  protected: v.exactOptional(v.boolean()),
  public_metrics: v.exactOptional(
    v.object({
      followers_count: Count,
      following_count: Count,
      tweet_count: Count,
      listed_count: Count,
      media_count: v.exactOptional(Count),
    }),
  ),
  verified: v.exactOptional(v.boolean()),
  verified_type: v.exactOptional(v.picklist(["blue", "none"])),
});

const NotFound = v.object({
  value: v.string(),
  detail: v.string(),
  title: v.literal("Not Found Error"),
  resource_type: v.picklist(["tweet", "user"]),
  parameter: v.string(),
  resource_id: v.string(),
  type: v.string(),
});

const Includes = v.exactOptional(
  v.object({
    users: v.exactOptional(v.array(V2User)),
    tweets: v.exactOptional(v.array(V2Tweet)),
    media: v.exactOptional(v.array(V2Media)),
  }),
);

const V2Counts = v.object({
  data: v.array(v.object({ start: v.string(), end: v.string(), tweet_count: Count })),
  meta: v.object({ total_tweet_count: Count }),
});

export function successSchema(route: V2Route) {
  if (route.v2.resource === "count") return V2Counts;
  const item = route.v2.resource === "tweet" ? V2Tweet : V2User;
  if (route.v2.maxResults) {
    return v.object({
      data: v.exactOptional(v.array(item)),
      includes: Includes,
      meta: v.object({
        result_count: Count,
        newest_id: v.exactOptional(Id),
        oldest_id: v.exactOptional(Id),
        next_token: v.exactOptional(v.string()),
      }),
    });
  }
  return v.object({
    data: v.exactOptional(route.lookupList ? v.array(item) : item),
    includes: Includes,
    errors: v.exactOptional(v.array(NotFound)),
  });
}

export const V2ErrorSchema = v.object({
  ...ErrorEnvelopeSchema.entries,
  title: v.string(),
  detail: v.string(),
  type: v.string(),
  status: v.pipe(v.number(), v.integer()),
  errors: v.array(
    v.object({
      parameters: v.exactOptional(v.record(v.string(), v.array(v.string()))),
      message: v.string(),
    }),
  ),
});
