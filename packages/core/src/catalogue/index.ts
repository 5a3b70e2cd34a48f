// The endpoint catalogue: the 31 /v1 reads of SPEC.md, one entry each, in one file per toolset, and
// the reads beyond it that X API v2 client code needs on /2 (each says why in `beyond`). The
// decisions for the points SPEC.md leaves open are in ../decisions.ts, built from these entries' constants.
import type { Endpoint } from "../endpoint.ts";
import { community, communityMembers, communityModerators, communitySearch, communityTweets } from "./communities.ts";
import { followers, following, relationship, verifiedFollowers } from "./graph.ts";
import { listMembers, listSubscribers, listTweets } from "./lists.ts";
import { searchCounts, searchRecent, searchRecentEnriched, trends } from "./search.ts";
import { article, quotes, retweeters, tweet, tweets } from "./tweets.ts";
import {
  user,
  userByUsername,
  userMedia,
  userMentions,
  userReplies,
  users,
  usersByUsernames,
  userTweets,
} from "./users.ts";
import { conversation, profile, profileByUsername, thread, tweetContext } from "./workflows.ts";

export { PAGE_SIZE, THREAD_MAX_TWEETS, WORKFLOW_SECTION_SIZE } from "./shared.ts";

// SPEC.md's order, which the docs, the OpenAPI paths and the MCP tool list keep.
const entries = [
  searchRecent,
  user,
  userByUsername,
  users,
  userTweets,
  userReplies,
  userMedia,
  followers,
  following,
  verifiedFollowers,
  relationship,
  tweet,
  tweets,
  quotes,
  retweeters,
  listTweets,
  listMembers,
  listSubscribers,
  community,
  communitySearch,
  communityMembers,
  communityModerators,
  trends,
  searchRecentEnriched,
  communityTweets,
  article,
  conversation,
  thread,
  profile,
  profileByUsername,
  tweetContext,
  // Beyond SPEC.md: what X API v2 code calls that /2 maps onto (see each entry's `beyond`).
  usersByUsernames,
  searchCounts,
  userMentions,
] as const;

/** Every entry's id, so that a `Record<EndpointId, …>` must name each endpoint and nothing else. */
export type EndpointId = (typeof entries)[number]["id"];

export const catalogue: readonly Endpoint[] = entries;

/** Entries by id, for ids that come from outside the code (usage records). */
export const endpointsById: ReadonlyMap<string, Endpoint> = new Map(
  catalogue.map((endpoint) => [endpoint.id, endpoint]),
);
