// Arguments for every tool from the fixture world's committed examples. A catalogue entry without
// arguments here fails the conformance suite, so a new tool cannot go untested.
import { examples } from "@social/fixtures";

const byUser = { id: examples.user_id };

export const EXAMPLE_ARGUMENTS: Readonly<Record<string, Record<string, unknown>>> = {
  search_recent_tweets: { query: examples.search_query, sort_order: "relevancy", limit: 5 },
  get_user: byUser,
  get_user_by_username: { username: examples.username.toUpperCase() },
  get_users: { ids: `${examples.user_id},${examples.media_user_id},${examples.user_id}` },
  get_user_tweets: byUser,
  get_user_tweets_and_replies: byUser,
  get_user_media: { id: examples.media_user_id },
  get_user_followers: { id: examples.user_id, mode: "ids", limit: 60 },
  get_user_following: byUser,
  get_user_verified_followers: byUser,
  get_relationship: { source: examples.source_username, target: examples.target_username },
  get_tweet: { id: examples.tweet_id },
  get_tweets: { ids: `${examples.tweet_id},${examples.reply_tweet_id}` },
  get_quote_tweets: { id: examples.quoted_tweet_id },
  get_retweeters: { id: examples.retweeted_tweet_id },
  get_list_tweets: { id: examples.list_id },
  get_list_members: { id: examples.list_id },
  get_list_subscribers: { id: examples.list_id },
  get_community: { id: examples.community_id },
  search_communities: { query: examples.community_query },
  get_community_members: { id: examples.community_id },
  get_community_moderators: { id: examples.community_id },
  get_trends: { woeid: examples.woeid, limit: 10 },
  search_recent_tweets_enriched: { query: examples.search_query, limit: 5 },
  get_community_tweets: { id: examples.community_id, sort: "likes", time_filter: "week" },
  get_tweet_article: { id: examples.article_tweet_id },
  get_tweet_conversation: { id: examples.thread_tweet_id },
  get_tweet_thread: { id: examples.thread_tweet_id },
  get_profile: byUser,
  get_profile_by_username: { username: examples.username },
  get_tweet_context: { id: examples.quoted_tweet_id },
  // An @ and a name in another case, as agents write handles.
  get_users_by_usernames: { usernames: `@${examples.username.toUpperCase()},${examples.source_username},nobody_here` },
  count_recent_tweets: { query: examples.search_query, granularity: "day" },
};

export { examples };
