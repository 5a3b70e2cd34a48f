// What the store suite asks with, all taken from the default world's records rather than from a
// database: public, protected and missing ids of every kind, spread evenly over the world.
import type { Tweet } from "@social/core";
import { isVisible, type WorldTruth } from "./world-truth.ts";

/** Ids in numeric order: they are decimal strings, some past 2^53. */
export function byId(a: string, b: string): number {
  const [x, y] = [BigInt(a), BigInt(b)];
  return x === y ? 0 : x < y ? -1 : 1;
}

/** `count` of `items`, spread evenly over them. */
export function spread<T>(items: readonly T[], count: number): T[] {
  const step = Math.max(1, Math.floor(items.length / count));
  return items.filter((_, index) => index % step === 0);
}

/** The distinct values of `values`, in id order. */
function distinctIds(values: readonly (string | undefined)[]): string[] {
  return [...new Set(values.filter((value) => value !== undefined))].sort(byId);
}

type Parent = "replied_to" | "quoted" | "retweeted" | "conversation";

/** The id of the tweet `tweet` refers to as `parent`. */
function parentOf(tweet: Tweet, parent: Parent): string | undefined {
  if (parent === "conversation") return tweet.conversation_id;
  const reference = tweet.referenced_tweets?.find((ref) => ref.type === parent)?.id;
  return parent === "quoted" ? (tweet.quoted_tweet_id ?? reference) : reference;
}

export type StoreArguments = ReturnType<typeof storeArguments>;

export function storeArguments(truth: WorldTruth) {
  const users = [...truth.users.values()].sort((a, b) => byId(a.id, b.id));
  const tweets = truth.tweets.slice().sort((a, b) => byId(a.id, b.id));
  const protectedTweets = tweets.filter((tweet) => !isVisible(truth, tweet));
  return {
    truth,
    users: (count: number) => spread(users, count).map((user) => user.id),
    protectedUsers: users.filter((user) => user.protected),
    tweets: (count: number) => spread(tweets, count).map((tweet) => tweet.id),
    protectedTweets: spread(protectedTweets, 20).map((tweet) => tweet.id),
    replies: (count: number) =>
      spread(
        tweets.filter((tweet) => parentOf(tweet, "replied_to")),
        count,
      ).map((tweet) => tweet.id),
    /** Tweets that are `parent` of others. */
    parents: (parent: Parent, count: number) =>
      spread(distinctIds(tweets.map((tweet) => parentOf(tweet, parent))), count),
    /** Tweets that are `parent` of protected tweets. */
    protectedParents: (parent: Parent) =>
      spread(distinctIds(protectedTweets.map((tweet) => parentOf(tweet, parent))), 5),
    byAuthor: (authorId: string) => tweets.filter((tweet) => tweet.author_id === authorId).map((tweet) => tweet.id),
    creationTimes: tweets.map((tweet) => Date.parse(tweet.created_at)).sort((a, b) => a - b),
    lists: distinctIds(truth.records.list.map((record) => record.list.id)),
    communities: distinctIds(truth.records.community.map((record) => record.community.id)),
    woeids: [...new Set(truth.records.trend.map((record) => record.trend.woeid))].sort(),
    articles: distinctIds(truth.records.article.map((record) => record.article.tweet_id)),
  };
}
