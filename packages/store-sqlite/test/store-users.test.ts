// User reads of the SqliteStore on the default world: lookups, timelines, the follow graph and
// relationships, each compared with the truth computed from the generator's records.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  IdObject,
  type IdPage,
  type Page,
  type ReadRange,
  type TimelineKind,
  Tweet,
  User,
  UserLookup,
} from "@social/core";
import { examples } from "@social/fixtures";
import * as v from "valibot";
import {
  type BuiltWorld,
  buildDefaultWorld,
  byIdDesc,
  isVisible,
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

const MISSING_IDS = ["1", "999999999999", "abc", "", "01000000001", "9007199254740993", "99999999999999999999999"];

describe("user lookups", () => {
  test("usersByIds returns full lookups in the order asked, skipping unknown ids", async () => {
    const { users } = world.truth;
    const ids = [examples.media_user_id, "42", examples.user_id, "1000000002"];
    const found = await world.store.usersByIds(ids);
    expect(found).toStrictEqual(ids.flatMap((id) => users.get(id) ?? []));
    for (const user of found) v.parse(UserLookup, user);
  });

  test("every user of the world reads back exactly as generated", async () => {
    const all = [...world.truth.users.values()];
    expect(await world.store.usersByIds(all.map((user) => user.id))).toStrictEqual(all);
  });

  test("userByUsername ignores case", async () => {
    const expected = world.truth.users.get(examples.user_id);
    for (const name of [examples.username, examples.username.toUpperCase(), "OrBiTaLmAyA"]) {
      expect(await world.store.userByUsername(name)).toStrictEqual(expected);
    }
    expect(await world.store.userByUsername("nobody_here_x")).toBeUndefined();
  });

  test("ids that are not stored ids find nothing", async () => {
    expect(await world.store.usersByIds(MISSING_IDS)).toEqual([]);
    expect(await world.store.tweetsByIds(MISSING_IDS)).toEqual([]);
  });
});

describe("timelines", () => {
  const isRetweet = (tweet: Tweet) => tweet.referenced_tweets?.some((ref) => ref.type === "retweeted") ?? false;
  type Belongs = (tweet: Tweet, userId: string) => boolean;
  const own =
    (belongs: (tweet: Tweet) => boolean): Belongs =>
    (tweet, userId) =>
      tweet.author_id === userId && belongs(tweet);
  const kinds: Record<TimelineKind, Belongs> = {
    tweets: own((tweet) => tweet.in_reply_to_user_id === undefined),
    originals: own((tweet) => tweet.in_reply_to_user_id === undefined && !isRetweet(tweet)),
    replies: own(() => true),
    media: own((tweet) => (tweet.media?.length ?? 0) > 0),
    // Anyone's tweets that name the user, protected authors' left out as everywhere.
    mentions: (tweet, userId) =>
      isVisible(world.truth, tweet) && tweet.entities.mentions.some((mention) => mention.id === userId),
  };
  for (const [kind, belongs] of Object.entries(kinds) as [TimelineKind, Belongs][]) {
    test(`${kind}: every page, newest first, exactly the user's ${kind}`, async () => {
      for (const userId of [examples.user_id, examples.media_user_id]) {
        const truth = world.truth.tweets.filter((tweet) => belongs(tweet, userId)).sort(byIdDesc);
        expect(truth.length).toBeGreaterThan(3);
        const { items, pages } = await walk((page) => world.store.timeline(userId, kind, page), 3);
        expect(pages).toBeGreaterThan(1);
        expect(items).toStrictEqual(truth);
        for (const tweet of items) v.parse(Tweet, tweet);
      }
    });
  }

  test("within a read range: ids strictly between since and until, created in [start, end), every page", async () => {
    const all = world.truth.tweets.filter((tweet) => tweet.author_id === examples.user_id).sort(byIdDesc);
    const [newest, , , , middle] = all;
    const oldest = all.at(-5);
    if (!newest || !middle || !oldest) throw new Error("the user has too few tweets");
    const ranges: ReadRange[] = [
      { sinceId: oldest.id },
      { untilId: middle.id },
      { sinceId: oldest.id, untilId: newest.id },
      { startMs: Date.parse(oldest.created_at), endMs: Date.parse(middle.created_at) },
      { sinceId: "1800000000000000001" },
      { untilId: "1800000000000000001" },
    ];
    const inRange = (tweet: Tweet, range: ReadRange) =>
      (range.sinceId === undefined || BigInt(tweet.id) > BigInt(range.sinceId)) &&
      (range.untilId === undefined || BigInt(tweet.id) < BigInt(range.untilId)) &&
      (range.startMs === undefined || Date.parse(tweet.created_at) >= range.startMs) &&
      (range.endMs === undefined || Date.parse(tweet.created_at) < range.endMs);
    for (const range of ranges) {
      const { items } = await walk((page) => world.store.timeline(examples.user_id, "replies", { ...page, range }), 3);
      expect({ range, items }).toStrictEqual({ range, items: all.filter((tweet) => inRange(tweet, range)) });
    }
  });

  test("a cursor of the wrong shape is refused as an invalid next_token (400), not misread", async () => {
    const refused = { code: "invalid_request", details: [{ parameter: "next_token" }] };
    for (const after of [["x"], [1, 2], [], [Number.NaN]]) {
      await expect(world.store.timeline(examples.user_id, "tweets", { size: 5, after })).rejects.toMatchObject(refused);
    }
    for (const after of [[1], [1, "x"], [1, 2.5], [0, 2 ** 60]]) {
      await expect(
        world.store.searchTweets({ kind: "term", value: "coffee" }, "relevancy", { size: 5, after }),
      ).rejects.toMatchObject(refused);
    }
  });

  test("an unknown user has no timeline; a user without tweets has an empty one", async () => {
    expect(await world.store.timeline("1", "tweets", { size: 5 })).toBeUndefined();
    const authors = new Set(world.truth.tweets.map((tweet) => tweet.author_id));
    const silent = [...world.truth.users.keys()].find((id) => !authors.has(id));
    if (silent !== undefined) expect(await world.store.timeline(silent, "replies", { size: 5 })).toEqual({ items: [] });
  });
});

/** An id page as a Page of IdObjects, its count checked against its JSON. */
async function idsAsPage(pending: Promise<IdPage | undefined>): Promise<Page<{ id: string }> | undefined> {
  const page = await pending;
  if (!page) return undefined;
  const items = JSON.parse(page.ids.text) as { id: string }[];
  expect(items).toHaveLength(page.count);
  return page.next ? { items, next: page.next } : { items };
}

describe("follow graph", () => {
  const follows = () => world.truth.records.follow;

  for (const direction of ["followers", "following"] as const) {
    const other = direction === "followers" ? "followerId" : "followeeId";
    const self = direction === "followers" ? "followeeId" : "followerId";

    test(`${direction}: newest follow first, every page, as users and as ids`, async () => {
      const truth = newestFirst(
        follows().filter((follow) => follow[self] === examples.user_id),
        (follow) => follow.createdAt,
        (follow) => follow[other],
      ).map((follow) => plainUser(world.truth.users.get(follow[other]) as never));
      expect(truth.length).toBeGreaterThan(10);
      const users = await walk((page) => world.store.graphUsers(examples.user_id, direction, page), 7);
      expect(users.items).toStrictEqual(truth);
      for (const user of users.items) v.parse(User, user);
      const ids = await walk((page) => idsAsPage(world.store.graphIds(examples.user_id, direction, page)), 5);
      expect(ids.items).toStrictEqual(truth.map((user) => ({ id: user.id })));
      for (const id of ids.items) v.parse(IdObject, id);
    });

    test(`${direction}: an id page exactly as long as what is left has no next page`, async () => {
      const total = follows().filter((follow) => follow[self] === examples.user_id).length;
      const all = await world.store.graphIds(examples.user_id, direction, { size: total });
      expect(all?.count).toBe(total);
      expect(all?.next).toBeUndefined();
      const short = await world.store.graphIds(examples.user_id, direction, { size: total - 1 });
      expect(short?.next).toBeDefined();
      const rest = await world.store.graphIds(examples.user_id, direction, {
        size: total,
        ...(short?.next ? { after: short.next } : {}),
      });
      expect(rest?.count).toBe(1);
      expect(JSON.parse(rest?.ids.text ?? "")).toStrictEqual(JSON.parse(all?.ids.text ?? "").slice(-1));
    });

    test(`${direction}: verified only`, async () => {
      const truth = newestFirst(
        follows().filter(
          (follow) => follow[self] === examples.user_id && world.truth.users.get(follow[other])?.verified,
        ),
        (follow) => follow.createdAt,
        (follow) => follow[other],
      ).map((follow) => follow[other]);
      const { items } = await walk(
        (page) => world.store.graphUsers(examples.user_id, direction, page, { verifiedOnly: true }),
        2,
      );
      expect(items.map((user) => user.id)).toEqual(truth);
      expect(items.every((user) => user.verified)).toBe(true);
    });

    test(`${direction}: unknown user`, async () => {
      expect(await world.store.graphUsers("1", direction, { size: 5 })).toBeUndefined();
      expect(await world.store.graphIds("abc", direction, { size: 5 })).toBeUndefined();
    });
  }

  test("relationship: case-insensitive names, both directions", async () => {
    const { source_username: source, target_username: target } = examples;
    const relationship = await world.store.relationship(source.toUpperCase(), target);
    const idOf = (username: string) =>
      [...world.truth.users.values()].find((user) => user.username === username)?.id as string;
    const follows = (a: string, b: string) =>
      world.truth.records.follow.some((follow) => follow.followerId === a && follow.followeeId === b);
    expect(relationship).toStrictEqual({
      source_user_id: idOf(source),
      source_username: source,
      target_user_id: idOf(target),
      target_username: target,
      following: follows(idOf(source), idOf(target)),
      followed_by: follows(idOf(target), idOf(source)),
    });
    expect(relationship?.following).toBe(true);
    expect(relationship?.followed_by).toBe(true);
  });

  test("relationship: false both ways between strangers, undefined for an unknown name", async () => {
    const followed = new Set(world.truth.records.follow.map((f) => `${f.followerId}>${f.followeeId}`));
    const users = [...world.truth.users.values()];
    const pair = users
      .flatMap((a) => users.slice(0, 50).map((b) => [a, b] as const))
      .find(([a, b]) => a.id !== b.id && !followed.has(`${a.id}>${b.id}`) && !followed.has(`${b.id}>${a.id}`));
    if (pair === undefined) throw new Error("no strangers in the world");
    const relationship = await world.store.relationship(pair[0].username, pair[1].username);
    expect(relationship?.following).toBe(false);
    expect(relationship?.followed_by).toBe(false);
    expect(await world.store.relationship("nobody_here_x", examples.target_username)).toBeUndefined();
    expect(await world.store.relationship(examples.source_username, "nobody_here_x")).toBeUndefined();
  });
});
