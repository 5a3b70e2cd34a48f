// The workflows toolset: reads that join several resources in one call (a conversation, a thread, a
// profile with its recent tweets, a tweet with its reception).
import * as v from "valibot";
import { PER_ITEM } from "../billing/costs.ts";
import { defineEndpoint, type ReadResult } from "../endpoint.ts";
import { notFound } from "../errors.ts";
import * as model from "../model.ts";
import { usernameParam } from "../params.ts";
import type { Store } from "../ports/store.ts";
import {
  byId,
  byIdPaged,
  fixedPageSize,
  pageResult,
  strict,
  THREAD_MAX_TWEETS,
  WORKFLOW_SECTION_SIZE,
} from "./shared.ts";

export const conversation = defineEndpoint({
  id: "tweet_conversation",
  path: "/v1/tweets/{id}/conversation",
  family: "workflow",
  toolset: "workflows",
  tool: "get_tweet_conversation",
  summary: "The replies under a tweet, oldest first, paginated; the tweet itself is excluded.",
  guidance: ["Everyone's replies.", "Use {tweet_thread} for only the author's own continuation."],
  params: byIdPaged,
  examples: { id: "thread_tweet_id" },
  cost: PER_ITEM,
  data: v.array(model.Tweet),
  pageSize: fixedPageSize,
  run: ({ store, params, page }) => pageResult(store.conversation(params.id, page), `No tweet with id ${params.id}`),
});

export const thread = defineEndpoint({
  id: "tweet_thread",
  path: "/v1/tweets/{id}/thread",
  family: "workflow",
  toolset: "workflows",
  tool: "get_tweet_thread",
  summary: `The root author's self-thread containing a tweet, oldest first (other users' replies excluded; at most ${THREAD_MAX_TWEETS} tweets).`,
  guidance: ["Reads a whole thread in one call from any of its tweets; complete=false means it was cut short."],
  params: byId,
  examples: { id: "thread_tweet_id" },
  cost: PER_ITEM,
  data: model.Thread,
  counted: (data) => data.tweets.length,
  maxItems: () => THREAD_MAX_TWEETS,
  run: async ({ store, params, maxItems }) => {
    const found = await store.selfThread(params.id, maxItems);
    if (!found) throw notFound(`No tweet with id ${params.id}`);
    return {
      data: {
        conversation_id: found.conversationId,
        author_id: found.authorId,
        complete: found.complete,
        tweets: found.tweets,
      },
    };
  },
});

async function profileOf(
  store: Store,
  user: model.UserLookup | undefined,
  missing: string,
  recentTweets: number,
): Promise<ReadResult<model.Profile>> {
  if (!user) throw notFound(missing);
  const recent = await store.timeline(user.id, "tweets", { size: recentTweets });
  return { data: { user, recent_tweets: recent?.items ?? [] } };
}

/** The user is in the base credit; the recent tweets are the items. */
const countRecentTweets = (data: model.Profile) => data.recent_tweets.length;

export const profile = defineEndpoint({
  id: "profile",
  path: "/v1/profiles/{id}",
  family: "workflow",
  toolset: "workflows",
  tool: "get_profile",
  summary: `A user's profile with their ${WORKFLOW_SECTION_SIZE} most recent tweets, by user id.`,
  guidance: ["One call instead of {user} plus {user_tweets}.", "Use {profile_by_username} from a handle."],
  params: byId,
  examples: { id: "user_id" },
  cost: PER_ITEM,
  data: model.Profile,
  counted: countRecentTweets,
  maxItems: () => WORKFLOW_SECTION_SIZE,
  run: async ({ store, params, maxItems }) =>
    profileOf(store, (await store.usersByIds([params.id]))[0], `No user with id ${params.id}`, maxItems),
});

export const profileByUsername = defineEndpoint({
  id: "profile_by_username",
  path: "/v1/profiles/by-username/{username}",
  family: "workflow",
  toolset: "workflows",
  tool: "get_profile_by_username",
  summary: `A user's profile with their ${WORKFLOW_SECTION_SIZE} most recent tweets, by username.`,
  guidance: ["The best first call about a person known by handle."],
  params: strict({ username: usernameParam }),
  examples: { username: "username" },
  cost: PER_ITEM,
  data: model.Profile,
  counted: countRecentTweets,
  maxItems: () => WORKFLOW_SECTION_SIZE,
  run: async ({ store, params, maxItems }) =>
    profileOf(store, await store.userByUsername(params.username), `No user named ${params.username}`, maxItems),
});

/**
 * A tweet's latest quotes and retweeters, at most `maxItems` together: both sections read at once when
 * both fit, and under a smaller cap the retweeters get what the quotes left.
 */
async function receptionOf(store: Store, tweetId: string, maxItems: number) {
  const section = { size: Math.min(WORKFLOW_SECTION_SIZE, maxItems) };
  if (maxItems >= 2 * WORKFLOW_SECTION_SIZE) {
    const [quoted, retweeted] = await Promise.all([store.quotes(tweetId, section), store.retweeters(tweetId, section)]);
    return { quoted, retweeted };
  }
  const quoted = await store.quotes(tweetId, section);
  const left = maxItems - (quoted?.items.length ?? 0);
  const retweeted =
    left > 0 ? await store.retweeters(tweetId, { size: Math.min(WORKFLOW_SECTION_SIZE, left) }) : undefined;
  return { quoted, retweeted };
}

export const tweetContext = defineEndpoint({
  id: "tweet_context",
  path: "/v1/tweets/{id}/context",
  family: "workflow",
  toolset: "workflows",
  tool: "get_tweet_context",
  summary: `A tweet with its author, its ${WORKFLOW_SECTION_SIZE} latest quotes and ${WORKFLOW_SECTION_SIZE} latest retweeters.`,
  guidance: [
    "Everything about one tweet's reception in one call.",
    "Page further with {tweet_quotes} and {tweet_retweeters}.",
  ],
  params: byId,
  examples: { id: "quoted_tweet_id" },
  cost: PER_ITEM,
  data: model.TweetContext,
  // The tweet and its author are in the base credit.
  counted: (data) => data.quotes.length + data.retweeters.length,
  maxItems: () => 2 * WORKFLOW_SECTION_SIZE,
  run: async ({ store, params, maxItems }) => {
    const [found] = await store.tweetsByIds([params.id]);
    if (!found) throw notFound(`No tweet with id ${params.id}`);
    const [[author], { quoted, retweeted }] = await Promise.all([
      store.usersByIds([found.author_id]),
      receptionOf(store, found.id, maxItems),
    ]);
    if (!author) throw notFound(`The author of tweet ${params.id} is not available`);
    return {
      data: {
        tweet: found,
        author: model.plainUser(author),
        quotes: quoted?.items ?? [],
        retweeters: retweeted?.items ?? [],
      },
    };
  },
});
