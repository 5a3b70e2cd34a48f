// What an object that is neither a tweet nor a user is, for the refusal that names it: collectors write
// count buckets, lists, Spaces and compliance records into the same kind of files as tweets, and the
// operator should read what the line holds, not that a tweet lacks its text.
import { isObject, type Json } from "./x-values.ts";

const SPACE_STATES = new Set(["live", "scheduled", "ended"]);

/** A phrase naming what `object` is when it is an X object other than a tweet or user; else undefined. */
export function otherObjectKind(object: unknown): string | undefined {
  if (!isObject(object)) return undefined;
  const has = (...fields: string[]) => fields.every((field) => field in object);
  if (has("start", "end", "tweet_count")) return "a count bucket ({start, end, tweet_count})";
  if ("action" in object && ("redacted_at" in object || "reason" in object)) {
    return `a compliance record (${describeAction(object)})`;
  }
  if (typeof object.state === "string" && SPACE_STATES.has(object.state)) return "a Space";
  if (has("host_ids") || has("creator_id", "title")) return "a Space";
  if (
    !("text" in object) &&
    !("username" in object) &&
    "name" in object &&
    ("owner_id" in object || "member_count" in object || "follower_count" in object || "private" in object)
  ) {
    return "a list";
  }
  return undefined;
}

function describeAction(object: Json): string {
  const words = [object.action, object.reason].filter((word): word is string => typeof word === "string");
  return words.join(", ").slice(0, 40);
}
