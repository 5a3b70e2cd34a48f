// A generated world kept as the generator's records: what a store built from it must answer, and where
// the store suite takes its arguments from, without asking any database.

import type { WorldRecord } from "@social/core";
import { type SearchDocument, searchDocument, type Tweet, type UserLookup } from "@social/core";
import { DEFAULT_WORLD, generateWorld, type WorldOptions } from "@social/fixtures";

type Of<Kind extends WorldRecord["kind"]> = Extract<WorldRecord, { kind: Kind }>;

export interface WorldTruth {
  clock: string;
  users: Map<string, UserLookup>;
  /** In id order, as generated. */
  tweets: Tweet[];
  tweetsById: Map<string, Tweet>;
  communityOf: Map<string, string>;
  records: { [Kind in WorldRecord["kind"]]: Of<Kind>[] };
}

export function collectWorld(options: WorldOptions): WorldTruth {
  const records = {
    user: [],
    follow: [],
    tweet: [],
    list: [],
    list_member: [],
    list_subscriber: [],
    community: [],
    community_member: [],
    trend: [],
    article: [],
  } as unknown as WorldTruth["records"];
  let clock = "";
  generateWorld(options, {
    begin: (meta) => {
      clock = meta.clock;
    },
    write: (batch) => {
      for (const record of batch) (records[record.kind] as WorldRecord[]).push(record);
    },
    end: () => {},
  });
  const tweets = records.tweet.map((record) => record.tweet);
  return {
    clock,
    users: new Map(records.user.map((record) => [record.user.id, record.user])),
    tweets,
    tweetsById: new Map(tweets.map((tweet) => [tweet.id, tweet])),
    communityOf: new Map(
      records.tweet.flatMap((record) =>
        record.communityId === undefined ? [] : [[record.tweet.id, record.communityId]],
      ),
    ),
    records,
  };
}

let defaultTruth: WorldTruth | undefined;

/** The default world's records, generated once per process. */
export function defaultWorldTruth(): WorldTruth {
  defaultTruth ??= collectWorld(DEFAULT_WORLD);
  return defaultTruth;
}

/** What the reference matcher knows of `tweet`, from the world's users. */
export function searchDocumentIn(truth: WorldTruth, tweet: Tweet): SearchDocument {
  const author = truth.users.get(tweet.author_id);
  const repliedTo = tweet.in_reply_to_user_id === undefined ? undefined : truth.users.get(tweet.in_reply_to_user_id);
  return searchDocument(tweet, {
    author: { username: author?.username ?? "", verified: author?.verified ?? false },
    ...(repliedTo ? { replyToUsername: repliedTo.username } : {}),
  });
}

/** Whether the store serves `tweet`: a protected account's tweets are left out of every read. */
export function isVisible(truth: WorldTruth, tweet: Tweet): boolean {
  return truth.users.get(tweet.author_id)?.protected === false;
}
