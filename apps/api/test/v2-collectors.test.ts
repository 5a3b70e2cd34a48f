// What existing X API v2 collectors send, answered as X does (#19): twarc2's default expansions and
// fields, expansions served into includes, since_id polling and the other read ranges, exclude on user
// timelines, X's query operators, users by usernames and tweet counts; driven by twitter-api-v2 and
// @xdevplatform/xdk unchanged but for the base URL, and over plain HTTP where a client has no call.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { examples } from "@social/fixtures";
import type { TweetV2 } from "twitter-api-v2";
import { startTestServer, type TestServer } from "./harness.ts";
import { charging, TWARC_EVERYTHING, twitterClient, xdkClient } from "./x-clients.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
}, 60_000);
afterAll(() => server.close());

const START = 1_000_000;
const query = examples.search_query;

async function getJson<T>(path: string, key: string, status = 200): Promise<T> {
  const response = await server.get(path, key);
  const body = (await response.json()) as T;
  expect([path, response.status]).toEqual([path, status]);
  return body;
}

/** twarc2's defaults for user reads (USER_EVERYTHING). */
const TWARC_USER_EVERYTHING = new URLSearchParams({
  expansions: "pinned_tweet_id",
  "tweet.fields": "attachments,author_id,created_at,entities,id,lang,public_metrics,text,referenced_tweets",
  "user.fields": "created_at,description,id,name,public_metrics,username,verified",
}).toString();

type PageTweet = TweetV2 & { attachments?: { media_keys: string[] } };

interface V2Page {
  data?: PageTweet[];
  includes?: {
    users?: { id: string; username: string; verified?: boolean }[];
    tweets?: TweetV2[];
    media?: { media_key: string; type: string; url?: string; preview_image_url?: string }[];
  };
  meta: { result_count: number; newest_id?: string; oldest_id?: string; next_token?: string };
}

/** Every id a page's tweets point at through the expansions twarc2 asks for, by kind. */
function referencedBy(tweets: readonly PageTweet[]) {
  return {
    tweets: new Set(tweets.flatMap((tweet) => (tweet.referenced_tweets ?? []).map((reference) => reference.id))),
    users: new Set(
      tweets.flatMap((tweet) => [
        tweet.author_id as string,
        ...(tweet.in_reply_to_user_id ? [tweet.in_reply_to_user_id] : []),
        ...(tweet.entities?.mentions ?? []).map((mention) => mention.id ?? ""),
      ]),
    ),
    media: new Set(tweets.flatMap((tweet) => tweet.attachments?.media_keys ?? [])),
  };
}

describe("twarc2's default request", () => {
  it("search, user timelines and lookups answer 200 with what their expansions name in includes", async () => {
    const { key } = await server.account(START);
    const paths = [
      `/2/tweets/search/recent?query=${encodeURIComponent(query)}&max_results=20&${TWARC_EVERYTHING}`,
      `/2/users/${examples.user_id}/tweets?max_results=100&${TWARC_EVERYTHING}`,
      `/2/users/${examples.media_user_id}/tweets?max_results=100&${TWARC_EVERYTHING}`,
      `/2/tweets/${examples.quoted_tweet_id}/quote_tweets?max_results=100&${TWARC_EVERYTHING}`,
      `/2/tweets?ids=${examples.reply_tweet_id},${examples.quoted_tweet_id}&${TWARC_EVERYTHING}`,
    ];
    const seen = { tweets: 0, users: 0, media: 0 };
    for (const path of paths) {
      const page = await getJson<V2Page>(path, key);
      const tweets = page.data ?? [];
      expect(tweets.length).toBeGreaterThan(0);
      const wanted = referencedBy(tweets);
      // referenced_tweets.id.author_id: the referenced tweets' authors too.
      for (const tweet of page.includes?.tweets ?? []) wanted.users.add(tweet.author_id as string);
      const included = {
        tweets: new Set((page.includes?.tweets ?? []).map((tweet) => tweet.id)),
        users: new Set((page.includes?.users ?? []).map((user) => user.id)),
        media: new Set((page.includes?.media ?? []).map((media) => media.media_key)),
      };
      // Nothing included that no tweet names; every user and media key named is there (referenced tweets
      // may be protected or gone, as on X).
      for (const kind of ["tweets", "users", "media"] as const) {
        const unasked = [...included[kind]].filter((id) => !wanted[kind].has(id));
        expect([path, kind, unasked]).toEqual([path, kind, []]);
        seen[kind] += included[kind].size;
      }
      expect([...wanted.media].filter((id) => !included.media.has(id))).toEqual([]);
      expect([...wanted.users].filter((id) => !included.users.has(id))).toEqual([]);
      // A tweet in includes is itself in X's shape, with the fields asked for.
      for (const tweet of page.includes?.tweets ?? []) expect(tweet.edit_history_tweet_ids).toEqual([tweet.id]);
    }
    expect(seen.tweets).toBeGreaterThan(0);
    expect(seen.media).toBeGreaterThan(0);
  });

  it("user reads take pinned_tweet_id and tweet.fields, and leave out what this service does not hold", async () => {
    const { key } = await server.account(START);
    const user = await getJson<{ data: { id: string }; includes?: unknown }>(
      `/2/users/${examples.user_id}?${TWARC_USER_EVERYTHING}`,
      key,
    );
    expect(user.data.id).toBe(examples.user_id);
    expect(user.includes).toBeUndefined();
    const followers = await getJson<{ data: unknown[] }>(
      `/2/users/${examples.user_id}/followers?max_results=1000&${TWARC_USER_EVERYTHING}`,
      key,
    );
    expect(followers.data.length).toBeGreaterThan(0);
  });

  it("unknown names stay 400, as on X, and search's max_results bound says 1 to 20", async () => {
    const { key } = await server.account(START);
    const q = encodeURIComponent(query);
    const badExpansion = await getJson<{ errors: { message: string }[] }>(
      `/2/tweets/search/recent?query=${q}&expansions=author_id,no.such`,
      key,
      400,
    );
    expect(badExpansion.errors[0]?.message).toContain("[no.such]");
    const badMedia = await getJson<{ errors: { message: string }[] }>(
      `/2/tweets/search/recent?query=${q}&media.fields=url,depth`,
      key,
      400,
    );
    expect(badMedia.errors[0]?.message).toContain("[depth]");
    const twarcDefault = await getJson<{ errors: { message: string }[] }>(
      `/2/tweets/search/recent?query=${q}&max_results=100`,
      key,
      400,
    );
    expect(twarcDefault.errors[0]?.message).toContain("1 to 20");
    const onCounts = await getJson<{ errors: { message: string }[] }>(
      `/2/tweets/counts/recent?query=${q}&tweet.fields=lang`,
      key,
      400,
    );
    expect(onCounts.errors[0]?.message).toContain("tweet.fields");
  });
});

describe("expansions with twitter-api-v2's includes helpers, not charged on their own", () => {
  it("quotes: includes.quote() finds the quoted tweet, and its author is in includes.users", async () => {
    const plain = await charging(server, (key) =>
      twitterClient(server, key).v2.quotes(examples.quoted_tweet_id, { max_results: 20 }),
    );
    const { result: page, charged } = await charging(server, (key) =>
      twitterClient(server, key).v2.quotes(examples.quoted_tweet_id, {
        max_results: 20,
        expansions: ["referenced_tweets.id", "referenced_tweets.id.author_id"],
      }),
    );
    expect(page.tweets.length).toBeGreaterThan(0);
    expect(charged).toBe(plain.charged);
    for (const tweet of page.tweets) {
      const quoted = page.includes.quote(tweet);
      expect(quoted?.id).toBe(examples.quoted_tweet_id);
      expect(page.includes.users.map((user) => user.id)).toContain(quoted?.author_id as string);
    }
  });

  it("media: includes.medias() gives each photo's url by its media key", async () => {
    const { result: page } = await charging(server, (key) =>
      twitterClient(server, key).v2.userTimeline(examples.media_user_id, {
        max_results: 20,
        expansions: ["attachments.media_keys"],
        "media.fields": ["url", "preview_image_url", "type"],
      }),
    );
    const withMedia = page.tweets.filter((tweet) => tweet.attachments?.media_keys);
    expect(withMedia.length).toBeGreaterThan(0);
    for (const tweet of withMedia) {
      const media = page.includes.medias(tweet);
      expect(media.map((item) => item.media_key)).toEqual(tweet.attachments?.media_keys as string[]);
      for (const item of media) expect(item.type === "photo" ? item.url : item.preview_image_url).toStartWith("http");
    }
  });

  it("replies and mentions: in_reply_to_user_id and entities.mentions.username include those users", async () => {
    const { result } = await charging(server, (key) =>
      twitterClient(server, key).v2.singleTweet(examples.reply_tweet_id, {
        expansions: ["in_reply_to_user_id", "entities.mentions.username"],
      }),
    );
    const replyTo = result.data.in_reply_to_user_id;
    expect(replyTo).toBeString();
    expect(result.includes?.users?.map((user) => user.id)).toContain(replyTo as string);
    // Mentions alone, on tweets that reply to nobody: includes.users is exactly the users mentioned.
    const { key } = await server.account(START);
    const mentioning = await getJson<V2Page>(
      `/2/tweets/search/recent?query=${encodeURIComponent("has:mentions -is:reply")}&max_results=20&expansions=entities.mentions.username`,
      key,
    );
    const mentioned = (mentioning.data ?? []).flatMap((tweet) => (tweet.entities?.mentions ?? []).map((m) => m.id));
    expect(mentioned.length).toBeGreaterThan(0);
    expect(new Set((mentioning.includes?.users ?? []).map((user) => user.id))).toEqual(new Set(mentioned));
  });
});

describe("incremental reads", () => {
  it("twitter-api-v2 search polls with since_id: only what is newer, newest_id to poll from next", async () => {
    const { key } = await server.account(START);
    const client = twitterClient(server, key);
    const first = await client.v2.search(query, { max_results: 10, sort_order: "recency" });
    const ids = first.tweets.map((tweet) => tweet.id);
    expect(ids).toHaveLength(10);
    expect(first.meta.newest_id).toBe(ids[0] as string);
    const since = ids[5] as string;
    const poll = await client.v2.search(query, { max_results: 20, since_id: since, sort_order: "recency" });
    expect(poll.tweets.map((tweet) => tweet.id)).toEqual(ids.slice(0, 5));
    expect(poll.meta).toMatchObject({ newest_id: ids[0], oldest_id: ids[4], result_count: 5 });
    const nothingNew = await client.v2.search(query, { since_id: first.meta.newest_id });
    expect(nothingNew.meta.result_count).toBe(0);
    const older = await client.v2.search(query, { max_results: 3, until_id: since, sort_order: "recency" });
    expect(older.tweets.map((tweet) => tweet.id)).toEqual(ids.slice(6, 9));
  });

  it("@xdevplatform/xdk's searchRecent takes sinceId and startTime/endTime", async () => {
    const { key } = await server.account(START);
    const client = xdkClient(server, key);
    const first = await client.posts.searchRecent(query, { maxResults: 10, postFields: ["created_at"] });
    const posts = first.data ?? [];
    const since = posts[3]?.id as string;
    const poll = await client.posts.searchRecent(query, { maxResults: 10, sinceId: since });
    expect((poll.data ?? []).map((post) => post.id)).toEqual(posts.slice(0, 3).map((post) => post.id));
    const newest = posts[0]?.createdAt as string;
    const oldest = posts[9]?.createdAt as string;
    const timed = await client.posts.searchRecent(query, { maxResults: 20, startTime: oldest, endTime: newest });
    // end_time is exclusive and start_time inclusive, so the window holds the ten but the newest.
    expect((timed.data ?? []).map((post) => post.id)).toEqual(posts.slice(1, 10).map((post) => post.id));
  });

  it("user timelines: since_id and exclude=retweets,replies as on /v1, keyset pages inside the range", async () => {
    const { key } = await server.account(START);
    const all = await getJson<V2Page>(
      `/2/users/${examples.user_id}/tweets?max_results=100&exclude=replies&tweet.fields=referenced_tweets`,
      key,
    );
    const tweets = all.data ?? [];
    const retweets = tweets.filter((tweet) => tweet.referenced_tweets?.some((ref) => ref.type === "retweeted"));
    expect(retweets.length).toBeGreaterThan(0);
    const originals = tweets.filter((tweet) => !retweets.includes(tweet));
    const since = originals[Math.floor(originals.length / 2)]?.id as string;
    const client = twitterClient(server, key);
    const paginator = await client.v2.userTimeline(examples.user_id, {
      exclude: ["retweets", "replies"],
      since_id: since,
      max_results: 5,
      "tweet.fields": ["referenced_tweets"],
    });
    for await (const _tweet of paginator) {
      // Iterating fetches every page.
    }
    const expected = originals.filter((tweet) => BigInt(tweet.id) > BigInt(since)).map((tweet) => tweet.id);
    expect(expected.length).toBeGreaterThan(5);
    expect(paginator.tweets.map((tweet) => tweet.id)).toEqual(expected);
    const v1: string[] = [];
    let token: string | undefined;
    do {
      const page: { data: { id: string }[]; meta: { pagination?: { next_token: string } } } = await getJson(
        `/v1/users/${examples.user_id}/tweets?exclude=retweets&since_id=${since}${token ? `&next_token=${token}` : ""}`,
        key,
      );
      v1.push(...page.data.map((tweet) => tweet.id));
      token = page.meta.pagination?.next_token;
    } while (token);
    expect(v1).toEqual(expected);
  });
});

describe("X's query operators on /2 search", () => {
  it("every operator of the table answers 200, and each match has what it asks for", async () => {
    const { key } = await server.account(START);
    const cases: [string, (tweet: TweetV2, verified: ReadonlySet<string>) => boolean][] = [
      ["-is:retweet", (t) => !t.referenced_tweets?.some((r) => r.type === "retweeted")],
      ["is:retweet", (t) => t.referenced_tweets?.some((r) => r.type === "retweeted") ?? false],
      ["is:verified", (t, verified) => verified.has(t.author_id as string)],
      [`to:${examples.username}`, (t) => t.in_reply_to_user_id === examples.user_id],
      // X's from: and to: take a user id as well.
      [`to:${examples.user_id}`, (t) => t.in_reply_to_user_id === examples.user_id],
      [`from:${examples.user_id}`, (t) => t.author_id === examples.user_id],
      ["is:reply", (t) => t.in_reply_to_user_id !== undefined],
      ["is:quote", (t) => t.referenced_tweets?.some((r) => r.type === "quoted") ?? false],
      ["has:links", (t) => (t.entities?.urls ?? []).length > 0],
      ["has:media", (t) => (t.attachments?.media_keys ?? []).length > 0],
      ["has:hashtags", (t) => (t.entities?.hashtags ?? []).length > 0],
      ["has:mentions", (t) => (t.entities?.mentions ?? []).length > 0],
      [`conversation_id:${examples.thread_tweet_id}`, (t) => t.conversation_id === examples.thread_tweet_id],
      [
        `from:${examples.username} -is:retweet -is:reply`,
        (t) => !t.referenced_tweets?.some((r) => r.type !== "quoted") && t.in_reply_to_user_id === undefined,
      ],
    ];
    const fields =
      "tweet.fields=referenced_tweets,in_reply_to_user_id,entities,attachments,conversation_id&expansions=author_id&user.fields=verified";
    for (const [operator, holds] of cases) {
      const page = await getJson<V2Page>(
        `/2/tweets/search/recent?query=${encodeURIComponent(operator)}&max_results=20&${fields}`,
        key,
      );
      const tweets = page.data ?? [];
      const verified = new Set((page.includes?.users ?? []).filter((user) => user.verified).map((user) => user.id));
      expect([operator, tweets.length > 0]).toEqual([operator, true]);
      const failing = tweets.filter((tweet) => !holds(tweet, verified)).map((tweet) => tweet.id);
      expect([operator, failing]).toEqual([operator, []]);
    }
    const ids = async (text: string) =>
      ((await getJson<V2Page>(`/2/tweets/search/recent?query=${encodeURIComponent(text)}`, key)).data ?? []).map(
        (tweet) => tweet.id,
      );
    expect(await ids(`from:${examples.user_id}`)).toEqual(await ids(`from:${examples.username}`));
    // Nothing here is nullcast: -is:nullcast, a common clause of queries written for X, keeps every match.
    expect(await ids(`${query} -is:nullcast`)).toEqual(await ids(query));
    expect(await ids(`${query} is:nullcast`)).toEqual([]);
  });

  it("an X operator this API cannot serve is a 400 that names it, uncharged", async () => {
    const { accountId, key } = await server.account(START);
    for (const operator of ["place:paris", "has:geo", "bio:coffee"]) {
      const body = await getJson<{ error: { code: string; message: string } }>(
        `/2/tweets/search/recent?query=${encodeURIComponent(`coffee ${operator}`)}`,
        key,
        400,
      );
      expect(body.error.message).toContain(operator.slice(0, operator.indexOf(":") + 1));
    }
    expect(await server.balance(accountId)).toBe(START);
  });
});

describe("users by usernames", () => {
  const names = [examples.username.toUpperCase(), examples.source_username, "nobody_here_x"];

  it("twitter-api-v2's usersByUsernames: found users, the missing name in errors, charged as /v1", async () => {
    const { result, charged } = await charging(server, (key) => twitterClient(server, key).v2.usersByUsernames(names));
    expect(result.data.map((user) => user.username.toLowerCase())).toEqual([
      examples.username.toLowerCase(),
      examples.source_username.toLowerCase(),
    ]);
    expect(result.errors).toEqual([
      {
        value: "nobody_here_x",
        detail: "Could not find user with usernames: [nobody_here_x].",
        title: "Not Found Error",
        resource_type: "user",
        parameter: "usernames",
        resource_id: "nobody_here_x",
        type: "https://api.twitter.com/2/problems/resource-not-found",
      },
    ]);
    const v1 = await charging(server, (key) => server.get(`/v1/users/by-usernames?usernames=${names.join(",")}`, key));
    expect(charged).toBe(v1.charged);
    expect(charged).toBe(3);
  });

  it("@xdevplatform/xdk's getByUsernames, and /2/users/by/username/{username} beside it", async () => {
    const { key } = await server.account(START);
    const client = xdkClient(server, key);
    const found = await client.users.getByUsernames(names, { userFields: ["public_metrics"] });
    expect((found.data ?? []).map((user) => user.id)).toContain(examples.user_id);
    expect(found.data?.[0]?.publicMetrics?.followersCount).toBeGreaterThan(0);
    const one = await client.users.getByUsername(examples.username);
    expect(one.data?.id).toBe(examples.user_id);
  });

  it("max_credits reads the first names it covers; the rest are in neither data nor errors", async () => {
    const { key } = await server.account(START);
    const response = await server.get(
      `/2/users/by?usernames=${examples.username},nobody_here_x,${examples.source_username}&max_credits=3`,
      key,
    );
    expect(response.headers.get("x-credits-capped")).toBe("true");
    expect(response.headers.get("x-credits-charged")).toBe("2");
    const body = (await response.json()) as { data: { username: string }[]; errors: { value: string }[] };
    expect(body.data.map((user) => user.username.toLowerCase())).toEqual([examples.username.toLowerCase()]);
    expect(body.errors.map((error) => error.value)).toEqual(["nobody_here_x"]);
  });

  it("1 to 100 usernames: 101 is a 400 that says so, and a bad name is named", async () => {
    const { accountId, key } = await server.account(START);
    const many = Array.from({ length: 101 }, (_, i) => `user_${i}`).join(",");
    const tooMany = await getJson<{ errors: { message: string }[] }>(`/2/users/by?usernames=${many}`, key, 400);
    expect(tooMany.errors[0]?.message).toContain("1 to 100");
    const spaced = await getJson<{ error: { details: { parameter: string }[] } }>(
      `/v1/users/by-usernames?usernames=${encodeURIComponent("alice, bob")}`,
      key,
      400,
    );
    expect(spaced.error.details[0]?.parameter).toBe("usernames");
    expect(await server.balance(accountId)).toBe(START);
  });
});

interface CountsBody {
  data: { start: string; end: string; tweet_count: number }[];
  meta: { total_tweet_count: number };
}

describe("tweet counts", () => {
  it("twitter-api-v2's tweetCountRecent: X's buckets, their total, and as many tweets as search returns", async () => {
    const { result, charged } = await charging(server, (key) =>
      twitterClient(server, key).v2.tweetCountRecent(query, { granularity: "day" }),
    );
    expect(charged).toBe(1);
    const buckets = result.data;
    // A week back from the clock: whole days between a partial first and last one (or 7 whole days).
    expect(buckets.length).toBeOneOf([7, 8]);
    expect(Date.parse(buckets.at(-1)?.end as string) - Date.parse(buckets[0]?.start as string)).toBe(7 * 86_400_000);
    buckets.forEach((bucket, index) => {
      if (index > 0) expect(bucket.start).toBe(buckets[index - 1]?.end as string);
      if (index > 0 && index < buckets.length - 1) {
        expect([bucket.start.slice(10), Date.parse(bucket.end) - Date.parse(bucket.start)]).toEqual([
          "T00:00:00.000Z",
          86_400_000,
        ]);
      }
    });
    const total = buckets.reduce((sum, bucket) => sum + bucket.tweet_count, 0);
    expect(result.meta.total_tweet_count).toBe(total);
    expect(total).toBeGreaterThan(20);
    // The search over the same window finds exactly that many tweets.
    const { key } = await server.account(START);
    const window = `start_time=${buckets[0]?.start}&end_time=${buckets.at(-1)?.end}`;
    let found = 0;
    let token: string | undefined;
    do {
      const page: V2Page = await getJson<V2Page>(
        `/2/tweets/search/recent?query=${encodeURIComponent(query)}&max_results=20&${window}${token ? `&next_token=${token}` : ""}`,
        key,
      );
      found += page.meta.result_count;
      token = page.meta.next_token;
    } while (token);
    expect(found).toBe(total);
  });

  it("@xdevplatform/xdk's getCountsRecent per hour, and /v1/search/counts with the same numbers", async () => {
    const { key } = await server.account(START);
    const client = xdkClient(server, key);
    const counts = await client.posts.getCountsRecent(query, { granularity: "hour" });
    const data = (counts.data ?? []) as unknown as { start: string; tweetCount: number }[];
    // Whole hours: 168 of them, or 169 when the clock is inside an hour.
    expect(data.length).toBeOneOf([7 * 24, 7 * 24 + 1]);
    const v1 = await getJson<{ data: { total_tweet_count: number; counts: { tweet_count: number }[] } }>(
      `/v1/search/counts?query=${encodeURIComponent(query)}`,
      key,
    );
    expect(v1.data.counts.map((bucket) => bucket.tweet_count)).toEqual(data.map((bucket) => bucket.tweetCount));
    expect((counts.meta as { totalTweetCount?: number }).totalTweetCount).toBe(v1.data.total_tweet_count);
  });

  it("ranges: minutes over at most a day, hours and days over at most 7; past that a 400 naming end_time", async () => {
    const { accountId, key } = await server.account(START);
    const q = encodeURIComponent(query);
    const minutes = await getJson<CountsBody>(`/2/tweets/counts/recent?query=${q}&granularity=minute`, key);
    expect(minutes.data.length).toBeOneOf([24 * 60, 24 * 60 + 1]);
    const start = minutes.data[0]?.start as string;
    const end = new Date(Date.parse(start) + 2 * 86_400_000).toISOString();
    const tooLong = await getJson<{ error: { details: { parameter: string; message: string }[] } }>(
      `/v1/search/counts?query=${q}&granularity=minute&start_time=${start}&end_time=${end}`,
      key,
      400,
    );
    expect(tooLong.error.details[0]).toEqual({
      parameter: "end_time",
      message: "must be at most 1 day at granularity=minute, 7 days at granularity=hour or day after start_time",
    });
    const week = await getJson<{ error: { details: { parameter: string }[] } }>(
      `/v1/search/counts?query=${q}&granularity=week`,
      key,
      400,
    );
    expect(week.error.details[0]?.parameter).toBe("granularity");
    // A quote of a range too long is the same 400: the rule is checked before anything is read.
    await getJson(
      `/v1/search/counts?query=${q}&granularity=minute&start_time=${start}&end_time=${end}&dry_run=true`,
      key,
      400,
    );
    const future = await getJson<{ error: { details: { parameter: string; message: string }[] } }>(
      `/2/tweets/counts/recent?query=${q}&start_time=2999-01-01T00:00:00Z`,
      key,
      400,
    );
    expect(future.error.details[0]?.parameter).toBe("start_time");
    expect(future.error.details[0]?.message).toStartWith("must be before end_time, and not after now (");
    const spent = START - (await server.balance(accountId));
    expect(spent).toBe(1);
  });

  it("a window inside units, with an offset as twarc2 writes it: the first bucket starts at start_time, the last ends at end_time", async () => {
    const { key } = await server.account(START);
    const q = encodeURIComponent(query);
    const clock = Date.parse(
      (await getJson<CountsBody>(`/2/tweets/counts/recent?query=${q}`, key)).data.at(-1)?.end as string,
    );
    const start = new Date(clock - 30 * 3_600_000 - 17 * 60_000 - 13_000);
    const end = new Date(clock - 65 * 60_000);
    const twarc = (at: Date) => encodeURIComponent(`${at.toISOString().slice(0, 19)}+00:00`);
    const counts = await getJson<CountsBody>(
      `/2/tweets/counts/recent?query=${q}&granularity=hour&start_time=${twarc(start)}&end_time=${twarc(end)}`,
      key,
    );
    expect(counts.data[0]?.start).toBe(new Date(Math.floor(start.getTime() / 1000) * 1000).toISOString());
    expect(counts.data.at(-1)?.end).toBe(end.toISOString());
    let found = 0;
    let token: string | undefined;
    do {
      const window = `start_time=${counts.data[0]?.start}&end_time=${counts.data.at(-1)?.end}`;
      const page: V2Page = await getJson<V2Page>(
        `/2/tweets/search/recent?query=${q}&max_results=20&${window}${token ? `&next_token=${token}` : ""}`,
        key,
      );
      found += page.meta.result_count;
      token = page.meta.next_token;
    } while (token);
    expect(counts.meta.total_tweet_count).toBe(found);
    expect(found).toBeGreaterThan(0);
  });

  it("dry_run quotes the flat credit, free", async () => {
    const { accountId, key } = await server.account(START);
    const quote = await getJson<{ meta: { dry_run: boolean; credits: { max: number } } }>(
      `/2/tweets/counts/recent?query=${encodeURIComponent(query)}&dry_run=true`,
      key,
    );
    expect(quote.meta).toMatchObject({ dry_run: true, credits: { max: 1 } });
    expect(await server.balance(accountId)).toBe(START);
  });
});
