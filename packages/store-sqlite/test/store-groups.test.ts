// Lists, communities and trends of the SqliteStore on the default world, each compared with the truth
// computed from the generator's records.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  Community,
  type CommunityTweetSort,
  type TimeFilter,
  Trend,
  Tweet as TweetSchema,
  tokenize,
  User,
} from "@social/core";
import { examples } from "@social/fixtures";
import * as v from "valibot";
import {
  type BuiltWorld,
  buildDefaultWorld,
  byIdDesc,
  communityTweetOrders,
  newestFirst,
  plainUser,
  walk,
} from "./world-helpers.ts";

let world: BuiltWorld;
// Building the default world takes a few seconds, more on a busy machine.
beforeAll(() => {
  world = buildDefaultWorld();
}, 60_000);
afterAll(() => world.db.close());

const DAY_MS = 86_400_000;

describe("lists", () => {
  const members = (listId: string) => world.truth.records.list_member.filter((m) => m.listId === listId);

  test("tweets: the members' tweets, newest first, every page", async () => {
    const authors = new Set(members(examples.list_id).map((m) => m.userId));
    const truth = world.truth.tweets.filter((tweet) => authors.has(tweet.author_id)).sort(byIdDesc);
    expect(truth.length).toBeGreaterThan(20);
    const { items, pages } = await walk((page) => world.store.listTweets(examples.list_id, page), 20);
    expect(pages).toBeGreaterThan(1);
    expect(items).toStrictEqual(truth);
  });

  for (const [read, kind] of [
    ["listMembers", "list_member"],
    ["listSubscribers", "list_subscriber"],
  ] as const) {
    test(`${read}: newest first, every page`, async () => {
      const truth = newestFirst(
        world.truth.records[kind].filter((m) => m.listId === examples.list_id),
        (m) => m.createdAt,
        (m) => m.userId,
      ).map((m) => plainUser(world.truth.users.get(m.userId) as never));
      expect(truth.length).toBeGreaterThan(2);
      const { items } = await walk((page) => world.store[read](examples.list_id, page), 2);
      expect(items).toStrictEqual(truth);
      for (const user of items) v.parse(User, user);
    });
  }

  test("an unknown list is undefined everywhere", async () => {
    for (const id of ["1", "1400000099999", "list"]) {
      expect(await world.store.listTweets(id, { size: 5 })).toBeUndefined();
      expect(await world.store.listMembers(id, { size: 5 })).toBeUndefined();
      expect(await world.store.listSubscribers(id, { size: 5 })).toBeUndefined();
    }
  });
});

describe("communities", () => {
  const communityTweets = (id: string) =>
    world.truth.tweets.filter((tweet) => world.truth.communityOf.get(tweet.id) === id);

  test("community: its public fields", async () => {
    const record = world.truth.records.community.find((c) => c.community.id === examples.community_id);
    const community = await world.store.community(examples.community_id);
    expect(community).toStrictEqual(record?.community);
    v.parse(Community, community);
    expect(await world.store.community("1500000099999")).toBeUndefined();
  });

  test("search: every word in the name or description, largest first, every page", async () => {
    const holds = (words: string[], c: Community) => {
      const tokens = new Set(tokenize(`${c.name} ${c.description}`));
      return words.every((word) => tokens.has(word));
    };
    const all = world.truth.records.community.map((c) => c.community);
    const bySize = (a: Community, b: Community) => b.member_count - a.member_count || Number(b.id) - Number(a.id);
    for (const query of [
      examples.community_query,
      "ASTROPHOTOGRAPHY",
      "the",
      "night sky",
      "",
      "zzz-none",
      '"a" OR *',
    ]) {
      const words = tokenize(query);
      const truth = all.filter((c) => holds(words, c)).sort(bySize);
      const { items } = await walk((page) => world.store.searchCommunities(query, page), 2);
      expect(items, query).toStrictEqual(truth);
    }
    const found = await world.store.searchCommunities(examples.community_query, { size: 10 });
    expect(found.items.map((c) => c.id)).toContain(examples.community_id);
  });

  for (const [read, roles] of [
    ["communityMembers", ["member", "moderator"]],
    ["communityModerators", ["moderator"]],
  ] as const) {
    test(`${read}: newest first, every page`, async () => {
      const truth = newestFirst(
        world.truth.records.community_member.filter(
          (m) => m.communityId === examples.community_id && (roles as readonly string[]).includes(m.role),
        ),
        (m) => m.createdAt,
        (m) => m.userId,
      ).map((m) => plainUser(world.truth.users.get(m.userId) as never));
      expect(truth.length).toBeGreaterThan(1);
      const { items } = await walk((page) => world.store[read](examples.community_id, page), 3);
      expect(items).toStrictEqual(truth);
      expect(await world.store[read]("1500000099999", { size: 3 })).toBeUndefined();
    });
  }

  const sorts = communityTweetOrders(() => world.truth);
  const windows: Record<TimeFilter, number> = { day: 1, week: 7, month: 30, year: 365, all: Number.POSITIVE_INFINITY };

  for (const sort of Object.keys(sorts) as CommunityTweetSort[]) {
    for (const timeFilter of Object.keys(windows) as TimeFilter[]) {
      test(`tweets sorted by ${sort} within ${timeFilter}, against the world's clock, every page`, async () => {
        const since = Date.parse(world.truth.clock) - windows[timeFilter] * DAY_MS;
        const truth = communityTweets(examples.community_id)
          .filter((tweet) => Date.parse(tweet.created_at) >= since)
          .sort(sorts[sort]);
        if (timeFilter === "all") expect(truth.length).toBeGreaterThan(5);
        const { items } = await walk(
          (page) => world.store.communityTweets(examples.community_id, sort, timeFilter, page),
          4,
        );
        expect(items).toStrictEqual(truth);
        for (const tweet of items) v.parse(TweetSchema, tweet);
      });
    }
  }

  test("an unknown community has no tweets", async () => {
    expect(await world.store.communityTweets("1500000099999", "recency", "all", { size: 5 })).toBeUndefined();
  });
});

describe("trends", () => {
  test("the top trends of a place by rank", async () => {
    const truth = world.truth.records.trend
      .map((record) => record.trend)
      .filter((trend) => trend.woeid === examples.woeid)
      .sort((a, b) => a.rank - b.rank);
    expect(truth.length).toBeGreaterThan(10);
    for (const limit of [1, 10, 100]) {
      const trends = await world.store.trends(examples.woeid, limit);
      expect(trends).toStrictEqual(truth.slice(0, limit));
      for (const trend of trends ?? []) v.parse(Trend, trend);
    }
  });

  test("undefined for an unknown place", async () => {
    expect(await world.store.trends("999999999", 10)).toBeUndefined();
  });
});
