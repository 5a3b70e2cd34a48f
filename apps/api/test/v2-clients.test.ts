// The /2 layer driven by the X API v2 client libraries over real HTTP, unchanged but for the base URL:
// twitter-api-v2's paginators and lookups, and @xdevplatform/xdk's pagination. Every read is charged
// exactly what the /v1 counterpart charges for the same items.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { costOf, PER_ITEM, type Tweet, type User } from "@social/core";
import { examples } from "@social/fixtures";
import { PostPaginator, UserPaginator } from "@xdevplatform/xdk";
import type { TwitterApi } from "twitter-api-v2";
import { startTestServer, type TestServer, walkV1 } from "./harness.ts";
import { charging, twitterClient, xdkClient } from "./x-clients.ts";

let server: TestServer;
// The first server of a test process builds the fixture world, which can take longer than a hook's default 5 s.
beforeAll(async () => {
  server = await startTestServer();
}, 60_000);
afterAll(() => server.close());

const START = 1_000_000;
const MISSING_ID = "999999999999";

/** Walks a /v1 read to its last page: the ids of its items, in order, and what the walk cost. */
function v1Walk(path: string) {
  return charging(server, (key) => walkV1(server, path, key));
}

/** What one /v1 request costs. */
async function v1Cost(path: string): Promise<number> {
  const { charged } = await charging(server, (key) => server.get(path, key));
  return charged;
}

/**
 * Iterates a twitter-api-v2 paginator to its end, as its docs show; fetchLast always requests once
 * more, so on a result of one page it would fetch that page again.
 */
async function toLastPage(paginator: AsyncIterable<unknown>): Promise<void> {
  for await (const _item of paginator) {
    // Each step fetches the next page into the paginator.
  }
}

function expectSameWalk(v2: { ids: string[]; charged: number }, v1: { result: string[]; charged: number }) {
  expect(v2.ids.length).toBeGreaterThan(0);
  expect(new Set(v2.ids).size).toBe(v2.ids.length);
  expect(v2.ids).toEqual(v1.result);
  expect(v2.charged).toBe(v1.charged);
}

const query = examples.search_query;

describe("twitter-api-v2 paginators, to the last page", () => {
  it("search: pages of 7 with author includes, the same tweets and cost as /v1 limit=7", async () => {
    const v1 = await v1Walk(`/v1/search/recent?query=${encodeURIComponent(query)}&limit=7`);
    const { result: paginator, charged } = await charging(server, async (key) => {
      const first = await twitterClient(server, key).v2.search(query, {
        max_results: 7,
        expansions: ["author_id"],
        "tweet.fields": ["author_id", "created_at", "public_metrics", "entities"],
        "user.fields": ["public_metrics", "created_at"],
      });
      await toLastPage(first);
      return first;
    });
    expect(paginator.done).toBe(true);
    expect(v1.result.length).toBeGreaterThan(14);
    expectSameWalk({ ids: paginator.tweets.map((tweet) => tweet.id), charged }, v1);
    for (const tweet of paginator.tweets) {
      expect(tweet.edit_history_tweet_ids).toEqual([tweet.id]);
      expect(tweet.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Object.keys(tweet.public_metrics ?? {}).sort()).toEqual([
        "bookmark_count",
        "impression_count",
        "like_count",
        "quote_count",
        "reply_count",
        "retweet_count",
      ]);
      const author = paginator.includes.author(tweet);
      expect(author?.id).toBe(tweet.author_id as string);
      expect(Object.keys(author?.public_metrics ?? {})).toEqual(
        expect.arrayContaining(["followers_count", "following_count", "tweet_count", "listed_count"]),
      );
    }
  });

  const walks: { name: string; v1: string; ids(client: TwitterApi): Promise<string[]> }[] = [
    {
      name: "user timeline without replies",
      v1: `/v1/users/${examples.user_id}/tweets`,
      ids: async (client) => {
        const paginator = await client.v2.userTimeline(examples.user_id, { max_results: 20, exclude: ["replies"] });
        await toLastPage(paginator);
        return paginator.tweets.map((tweet) => tweet.id);
      },
    },
    {
      name: "mentions timeline",
      v1: `/v1/users/${examples.user_id}/mentions`,
      ids: async (client) => {
        const paginator = await client.v2.userMentionTimeline(examples.user_id, { max_results: 20 });
        await toLastPage(paginator);
        return paginator.tweets.map((tweet) => tweet.id);
      },
    },
    {
      name: "followers",
      v1: `/v1/users/${examples.user_id}/followers`,
      ids: async (client) => {
        const paginator = await client.v2.followers(examples.user_id, { asPaginator: true, max_results: 20 });
        await toLastPage(paginator);
        return paginator.users.map((user) => user.id);
      },
    },
    {
      name: "following",
      v1: `/v1/users/${examples.user_id}/following`,
      ids: async (client) => {
        const paginator = await client.v2.following(examples.user_id, { asPaginator: true, max_results: 20 });
        await toLastPage(paginator);
        return paginator.users.map((user) => user.id);
      },
    },
    {
      name: "quote tweets",
      v1: `/v1/tweets/${examples.quoted_tweet_id}/quotes`,
      ids: async (client) => {
        const paginator = await client.v2.quotes(examples.quoted_tweet_id, { max_results: 20 });
        await toLastPage(paginator);
        return paginator.tweets.map((tweet) => tweet.id);
      },
    },
    {
      name: "retweeted_by",
      v1: `/v1/tweets/${examples.quoted_tweet_id}/retweeters`,
      ids: async (client) => {
        const paginator = await client.v2.tweetRetweetedBy(examples.quoted_tweet_id, {
          asPaginator: true,
          max_results: 20,
        });
        await toLastPage(paginator);
        return paginator.users.map((user) => user.id);
      },
    },
    {
      name: "list tweets",
      v1: `/v1/lists/${examples.list_id}/tweets`,
      ids: async (client) => {
        const paginator = await client.v2.listTweets(examples.list_id, { max_results: 20 });
        await toLastPage(paginator);
        return paginator.tweets.map((tweet) => tweet.id);
      },
    },
    {
      name: "list members",
      v1: `/v1/lists/${examples.list_id}/members`,
      ids: async (client) => {
        const paginator = await client.v2.listMembers(examples.list_id, { max_results: 20 });
        await toLastPage(paginator);
        return paginator.users.map((user) => user.id);
      },
    },
    {
      name: "list followers",
      v1: `/v1/lists/${examples.list_id}/subscribers`,
      ids: async (client) => {
        const paginator = await client.v2.listFollowers(examples.list_id, { max_results: 20 });
        await toLastPage(paginator);
        return paginator.users.map((user) => user.id);
      },
    },
  ];

  for (const walk of walks) {
    it(`${walk.name}: pages of 20, the same items and cost as ${walk.v1}`, async () => {
      const v1 = await v1Walk(walk.v1);
      const { result: ids, charged } = await charging(server, (key) => walk.ids(twitterClient(server, key)));
      expectSameWalk({ ids, charged }, v1);
    }, 60_000);
  }

  it("followers without max_results: one page of up to 100 profiles at the /v1 per-item price", async () => {
    const { result: page, charged } = await charging(server, (key) =>
      twitterClient(server, key).v2.followers(examples.user_id),
    );
    const count = page.data?.length ?? 0;
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThanOrEqual(100);
    expect(page.meta.result_count).toBe(count);
    expect(charged).toBe(costOf(PER_ITEM, count));
    const v1 = await v1Walk(`/v1/users/${examples.user_id}/followers`);
    expect(page.data.map((user) => user.id)).toEqual(v1.result.slice(0, count));
  });
});

describe("fields in X API v2's names, from the same data /v1 serves", () => {
  it("quote tweets: public_metrics, created_at, entities and the quoted reference", async () => {
    const { key } = await server.account(START);
    const v1 = (await (await server.get(`/v1/tweets/${examples.quoted_tweet_id}/quotes`, key)).json()) as {
      data: Tweet[];
    };
    const paginator = await twitterClient(server, key).v2.quotes(examples.quoted_tweet_id, {
      max_results: 20,
      "tweet.fields": ["author_id", "created_at", "entities", "lang", "public_metrics", "referenced_tweets"],
    });
    expect(paginator.tweets.length).toBe(v1.data.length);
    paginator.tweets.forEach((tweet, index) => {
      const source = v1.data[index] as Tweet;
      expect(tweet).toMatchObject({
        id: source.id,
        text: source.text,
        author_id: source.author_id,
        created_at: source.created_at,
        lang: source.lang,
        public_metrics: {
          retweet_count: source.retweet_count,
          reply_count: source.reply_count,
          like_count: source.like_count,
          quote_count: source.quote_count,
          bookmark_count: source.bookmark_count,
        },
      });
      expect(tweet.referenced_tweets).toContainEqual({ type: "quoted", id: examples.quoted_tweet_id });
      for (const kind of ["hashtags", "mentions", "urls"] as const) {
        const expected = source.entities[kind];
        expect(tweet.entities?.[kind] as unknown).toEqual(expected.length > 0 ? expected : undefined);
      }
    });
  });

  it("followers: public_metrics counts, verified, created_at and description", async () => {
    const { key } = await server.account(START);
    const v1 = (await (await server.get(`/v1/users/${examples.user_id}/followers`, key)).json()) as { data: User[] };
    const page = await twitterClient(server, key).v2.followers(examples.user_id, {
      max_results: 20,
      "user.fields": ["created_at", "description", "public_metrics", "verified", "protected", "profile_image_url"],
    });
    expect(page.data.length).toBe(v1.data.length);
    page.data.forEach((user, index) => {
      const source = v1.data[index] as User;
      expect(user).toMatchObject({
        id: source.id,
        username: source.username,
        name: source.name,
        created_at: source.created_at,
        description: source.description,
        verified: source.verified,
        protected: source.protected,
        profile_image_url: source.profile_image_url,
        public_metrics: {
          followers_count: source.follower_count,
          following_count: source.following_count,
          tweet_count: source.tweet_count,
        },
      });
    });
  });
});

describe("twitter-api-v2 lookups", () => {
  it("user by id and by username, with user.fields, at /v1's flat price", async () => {
    const byId = await charging(server, (key) =>
      twitterClient(server, key).v2.user(examples.user_id, {
        "user.fields": ["public_metrics", "description", "verified"],
      }),
    );
    expect(byId.result.data).toMatchObject({ id: examples.user_id, username: expect.any(String) });
    expect(byId.result.data.public_metrics?.followers_count).toBeGreaterThanOrEqual(0);
    expect(byId.charged).toBe(await v1Cost(`/v1/users/${examples.user_id}`));

    const byName = await charging(server, (key) =>
      twitterClient(server, key).v2.userByUsername(examples.username.toUpperCase()),
    );
    expect(Object.keys(byName.result.data).sort()).toEqual(["id", "name", "username"]);
    expect(byName.result.data.id).toBe(byId.result.data.id);
    expect(byName.charged).toBe(await v1Cost(`/v1/users/by-username/${examples.username}`));
  });

  it("users by ids: found users in data, the missing id in errors, charged as /v1", async () => {
    const ids = [examples.user_id, MISSING_ID, examples.user_id];
    const { result, charged } = await charging(server, (key) => twitterClient(server, key).v2.users(ids));
    expect(result.data.map((user) => user.id)).toEqual([examples.user_id]);
    expect(result.errors).toEqual([
      expect.objectContaining({
        resource_id: MISSING_ID,
        parameter: "ids",
        resource_type: "user",
        title: "Not Found Error",
        type: "https://api.twitter.com/2/problems/resource-not-found",
      }),
    ]);
    expect(charged).toBe(await v1Cost(`/v1/users?ids=${ids.join(",")}`));
  });

  it("a missing user or tweet: 200 with errors and no data, not charged (as /v1's 404)", async () => {
    const user = await charging(server, (key) => twitterClient(server, key).v2.user(MISSING_ID));
    expect(user.result.data).toBeUndefined();
    expect(user.result.errors?.[0]).toMatchObject({ resource_id: MISSING_ID, parameter: "id", resource_type: "user" });
    const byName = await charging(server, (key) => twitterClient(server, key).v2.userByUsername("nobody_has_this"));
    expect(byName.result.errors?.[0]).toMatchObject({ value: "nobody_has_this", parameter: "username" });
    const tweet = await charging(server, (key) => twitterClient(server, key).v2.singleTweet(MISSING_ID));
    expect(tweet.result.errors?.[0]).toMatchObject({ resource_id: MISSING_ID, resource_type: "tweet" });
    expect([user.charged, byName.charged, tweet.charged]).toEqual([0, 0, 0]);
  });

  it("tweet by id with expansions=author_id joins its author", async () => {
    const { result, charged } = await charging(server, (key) =>
      twitterClient(server, key).v2.singleTweet(examples.quoted_tweet_id, {
        expansions: ["author_id"],
        "tweet.fields": ["author_id", "conversation_id", "lang", "referenced_tweets"],
      }),
    );
    expect(result.data.id).toBe(examples.quoted_tweet_id);
    expect(result.includes?.users?.map((user) => user.id)).toEqual([result.data.author_id as string]);
    expect(charged).toBe(await v1Cost(`/v1/tweets/${examples.quoted_tweet_id}`));
  });

  it("tweets by ids: found tweets in order, the missing one in errors, charged as /v1", async () => {
    const ids = [examples.tweet_id, MISSING_ID, examples.quoted_tweet_id];
    const { result, charged } = await charging(server, (key) => twitterClient(server, key).v2.tweets(ids));
    expect(result.data.map((tweet) => tweet.id)).toEqual([examples.tweet_id, examples.quoted_tweet_id]);
    expect(result.errors?.map((error) => error.resource_id)).toEqual([MISSING_ID]);
    expect(charged).toBe(await v1Cost(`/v1/tweets?ids=${ids.join(",")}`));
  });
});

describe("@xdevplatform/xdk pagination", () => {
  it("search with PostPaginator (post.fields, next_token): the same tweets and cost as /v1", async () => {
    const v1 = await v1Walk(`/v1/search/recent?query=${encodeURIComponent(query)}&limit=9`);
    const { result: paginator, charged } = await charging(server, async (key) => {
      const client = xdkClient(server, key);
      const posts = new PostPaginator(async (token?: string) => {
        const page = await client.posts.searchRecent(query, {
          maxResults: 9,
          postFields: ["public_metrics", "created_at"],
          ...(token ? { nextToken: token } : {}),
        });
        return { data: page.data ?? [], meta: page.meta, includes: page.includes, errors: page.errors };
      });
      for await (const _post of posts) {
        // Iterating is what drives the paginator to its last page.
      }
      return posts;
    });
    expectSameWalk({ ids: paginator.posts.map((post) => post.id), charged }, v1);
    expect(paginator.posts[0].publicMetrics).toMatchObject({ likeCount: expect.any(Number) });
  });

  it("followers with UserPaginator (pagination_token): the same users and cost as /v1", async () => {
    const v1 = await v1Walk(`/v1/users/${examples.user_id}/followers`);
    const { result: paginator, charged } = await charging(server, async (key) => {
      const client = xdkClient(server, key);
      const users = new UserPaginator(async (token?: string) => {
        const page = await client.users.getFollowers(examples.user_id, {
          maxResults: 20,
          userFields: ["created_at"],
          ...(token ? { paginationToken: token } : {}),
        });
        return { data: page.data ?? [], meta: page.meta, includes: page.includes, errors: page.errors };
      });
      await users.fetchNext();
      while (!users.done) await users.fetchNext();
      return users;
    });
    expectSameWalk({ ids: paginator.users.map((user) => user.id), charged }, v1);
    expect(paginator.users[0].createdAt).toMatch(/Z$/);
  }, 60_000);
});
