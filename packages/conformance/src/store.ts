// The Store port's contract on the default world: every read asked with arguments taken from the
// generated world (public, protected and missing ids, odd names and cursors), page after page with the
// cursors the store hands out. Search and counts are checked against core's reference matcher on the
// generator's records (./store-search.ts); every other read against committed answers (./golden.ts), to
// the byte: the same items in the same order, the same cursors, the same `undefined`s, the same JSON
// text of id pages and the same errors.
import { afterAll, describe, expect, test } from "bun:test";
import type {
  CommunityTweetSort,
  Cursor,
  GraphDirection,
  ReadRange,
  Store,
  TimeFilter,
  TimelineKind,
} from "@social/core";
import { examples } from "@social/fixtures";
import { Answers } from "./golden.ts";
import { type StoreArguments, spread, storeArguments } from "./store-arguments.ts";
import { checkCounts, checkRecentSearch, checkRelevancySearch } from "./store-search.ts";
import { defaultWorldTruth } from "./world-truth.ts";

/** A store of the adapter's over the default world (DEFAULT_WORLD), built by the factory. */
export interface StoreFixture {
  store: Store;
  close(): Promise<void>;
}

const MISSING_IDS = ["1", "0", "abc", "", " 1000000001", "01000000001", "9007199254740993", "-1"];
const TIMELINES: TimelineKind[] = ["tweets", "originals", "replies", "media", "mentions"];
const DIRECTIONS: GraphDirection[] = ["followers", "following"];
const SORTS: CommunityTweetSort[] = ["relevance", "recency", "likes"];
const TIME_FILTERS: TimeFilter[] = ["day", "week", "month", "year", "all"];

export function storeConformance(name: string, open: () => Promise<StoreFixture>): void {
  describe(`Store on ${name}, on the default world`, () => {
    let fixture: StoreFixture | undefined;
    let store: Store;
    let world: StoreArguments;

    afterAll(() => fixture?.close());

    test("the default world is built", async () => {
      world = storeArguments(defaultWorldTruth());
      fixture = await open();
      store = fixture.store;
      expect(world.protectedUsers.length).toBeGreaterThan(0);
      expect(world.protectedTweets.length).toBeGreaterThan(0);
      expect(await store.clockMs()).toBe(Date.parse(world.truth.clock));
    }, 120_000);

    test("tweets and users by ids: order, repeats, missing and protected ids", async () => {
      const answers = new Answers("lookups");
      const tweetIds = [
        examples.tweet_id,
        ...world.protectedTweets.slice(0, 3),
        examples.thread_tweet_id,
        ...MISSING_IDS,
        examples.tweet_id,
        ...world.tweets(100),
      ];
      const tweets = await answers.read("tweetsByIds(mixed)", () => store.tweetsByIds(tweetIds));
      expect(tweets?.length).toBeGreaterThan(90);
      expect(await answers.read("tweetsByIds()", () => store.tweetsByIds([]))).toEqual([]);
      const userIds = [
        examples.user_id,
        ...world.protectedUsers.map((user) => user.id),
        ...MISSING_IDS,
        ...world.users(50),
      ];
      expect((await answers.read("usersByIds(mixed)", () => store.usersByIds(userIds)))?.length).toBeGreaterThan(50);
      answers.expectCommitted();
    });

    test("users by username, case-insensitive in ASCII only", async () => {
      const answers = new Answers("usernames");
      const protectedName = world.protectedUsers[0]?.username ?? "";
      for (const name of [
        examples.username,
        examples.username.toUpperCase(),
        protectedName,
        "nobody_here",
        "",
        "ORBİTALMAYA",
        "orbitalmaya ",
      ]) {
        await answers.read(`userByUsername(${JSON.stringify(name)})`, () => store.userByUsername(name));
      }
      expect(await store.userByUsername(examples.username.toUpperCase())).toBeDefined();
      const names = [
        examples.username.toUpperCase(),
        "nobody_here",
        protectedName,
        examples.source_username,
        examples.username,
        "ORBİTALMAYA",
        'a"b\\c,{d}',
        "nul\u0000name",
      ];
      expect((await answers.read("usersByUsernames(mixed)", () => store.usersByUsernames(names)))?.length).toBe(4);
      expect(await answers.read("usersByUsernames()", () => store.usersByUsernames([]))).toEqual([]);
      answers.expectCommitted();
    });

    test("timelines of every kind, every page, for public, protected and missing users", async () => {
      const answers = new Answers("timelines");
      let items = 0;
      const users = [
        examples.user_id,
        examples.media_user_id,
        ...world.protectedUsers.slice(0, 3).map((user) => user.id),
        "1",
        ...world.users(15),
      ];
      for (const user of users) {
        for (const kind of TIMELINES) {
          for (const size of [7, 100]) {
            items += await answers.walk(`timeline(${user}, ${kind}) by ${size}`, (after) =>
              store.timeline(user, kind, { size, after }),
            );
          }
        }
      }
      expect(items).toBeGreaterThan(1000);
      answers.expectCommitted();
    });

    test("timelines within read ranges: ids, times and both, past 2^53 too, every page", async () => {
      const answers = new Answers("timeline-ranges");
      const [low, high] = spread(world.byAuthor(examples.user_id), 2) as [string, string];
      const [early, late] = spread(world.creationTimes, 2) as [number, number];
      const ranges: ReadRange[] = [
        { sinceId: low },
        { untilId: high },
        { sinceId: low, untilId: high },
        { startMs: early, endMs: late },
        { sinceId: "1800000000000000001" },
        { untilId: "1800000000000000001", startMs: early },
      ];
      let items = 0;
      for (const range of ranges) {
        for (const kind of TIMELINES) {
          items += await answers.walk(`timeline(${examples.user_id}, ${kind}) in ${JSON.stringify(range)}`, (after) =>
            store.timeline(examples.user_id, kind, { size: 7, after, range }),
          );
        }
      }
      expect(items).toBeGreaterThan(50);
      answers.expectCommitted();
    });

    test("followers and followings, all or verified only, every page", async () => {
      const answers = new Answers("graph-users");
      let items = 0;
      const users = [
        examples.user_id,
        examples.media_user_id,
        world.protectedUsers[0]?.id ?? "",
        "1",
        ...world.users(10),
      ];
      for (const user of users) {
        for (const direction of DIRECTIONS) {
          for (const verifiedOnly of [false, true]) {
            items += await answers.walk(`graphUsers(${user}, ${direction}, verifiedOnly: ${verifiedOnly})`, (after) =>
              store.graphUsers(user, direction, { size: 50, after }, { verifiedOnly }),
            );
          }
        }
      }
      expect(items).toBeGreaterThan(500);
      answers.expectCommitted();
    });

    test("follower and following ids: the same JSON text, counts and cursors, every page", async () => {
      const answers = new Answers("graph-ids");
      const users = [examples.user_id, world.protectedUsers[0]?.id ?? "", "1", ...world.users(10)];
      let ids = 0;
      for (const user of users) {
        for (const direction of DIRECTIONS) {
          for (const size of [5000, 37, 1]) {
            // The ids' JSON text as the store wrote it, which an answer passes on without parsing.
            ids += await answers.walk(
              `graphIds(${user}, ${direction}) by ${size}`,
              async (after) => {
                const page = await store.graphIds(user, direction, { size, after });
                if (page === undefined) return undefined;
                return {
                  items: JSON.parse(page.ids.text) as unknown[],
                  text: page.ids.text,
                  count: page.count,
                  next: page.next,
                };
              },
              30,
            );
          }
        }
      }
      expect(ids).toBeGreaterThan(500);
      const empty = await store.graphIds(examples.user_id, "followers", { size: 10, after: [0, 0] });
      expect(empty?.ids.text).toBe("[]");
      answers.expectCommitted();
    });

    test("relationships, both ways, any case, and missing users", async () => {
      const answers = new Answers("relationships");
      const { source_username: source, target_username: target } = examples;
      for (const [a, b] of [
        [source, target],
        [target, source],
        [source.toUpperCase(), target],
        [source, source],
        [source, "nobody_here"],
        ["nobody_here", target],
      ] as const) {
        await answers.read(`relationship(${a}, ${b})`, () => store.relationship(a, b));
      }
      expect(await store.relationship(source, target)).toMatchObject({ source_username: source });
      answers.expectCommitted();
    });

    test("quotes, retweeters and conversations, every page, with protected tweets among them", async () => {
      const answers = new Answers("tweet-relations");
      const common = [
        examples.tweet_id,
        examples.quoted_tweet_id,
        examples.retweeted_tweet_id,
        examples.thread_tweet_id,
      ];
      const missing = [...world.protectedTweets.slice(0, 2), "1", "abc"];
      let items = 0;
      for (const tweet of [
        ...common,
        ...missing,
        ...world.parents("quoted", 15),
        ...world.protectedParents("quoted"),
      ]) {
        items += await answers.walk(`quotes(${tweet})`, (after) => store.quotes(tweet, { size: 5, after }));
      }
      const retweeted = [
        ...common,
        ...missing,
        ...world.parents("retweeted", 15),
        ...world.protectedParents("retweeted"),
      ];
      for (const tweet of retweeted) {
        items += await answers.walk(`retweeters(${tweet})`, (after) => store.retweeters(tweet, { size: 5, after }));
      }
      const conversations = [
        ...common,
        examples.reply_tweet_id,
        ...missing,
        ...world.parents("replied_to", 15),
        ...world.protectedParents("replied_to"),
        ...world.parents("conversation", 15),
      ];
      for (const tweet of conversations) {
        items += await answers.walk(`conversation(${tweet})`, (after) =>
          store.conversation(tweet, { size: 10, after }),
        );
      }
      expect(items).toBeGreaterThan(100);
      answers.expectCommitted();
    });

    test("self-threads and articles", async () => {
      const answers = new Answers("threads-and-articles");
      const tweets = [
        examples.thread_tweet_id,
        examples.reply_tweet_id,
        examples.tweet_id,
        examples.article_tweet_id,
        ...world.protectedTweets.slice(0, 3),
        "1",
        ...world.replies(30),
      ];
      for (const tweet of tweets) {
        for (const max of [1, 3, 25])
          await answers.read(`selfThread(${tweet}, ${max})`, () => store.selfThread(tweet, max));
      }
      expect((await store.selfThread(examples.thread_tweet_id, 25))?.tweets.length).toBeGreaterThan(1);
      for (const tweet of [examples.article_tweet_id, examples.tweet_id, "1", ...spread(world.articles, 30)]) {
        await answers.read(`article(${tweet})`, () => store.article(tweet));
      }
      expect(await store.article(examples.article_tweet_id)).toBeDefined();
      answers.expectCommitted();
    });

    test("every list's tweets, members and subscribers, every page", async () => {
      const answers = new Answers("lists");
      let items = 0;
      for (const list of [...spread(world.lists, 100), "1", "abc"]) {
        items += await answers.walk(`listTweets(${list})`, (after) => store.listTweets(list, { size: 50, after }), 20);
        items += await answers.walk(`listMembers(${list})`, (after) => store.listMembers(list, { size: 9, after }));
        items += await answers.walk(`listSubscribers(${list})`, (after) =>
          store.listSubscribers(list, { size: 9, after }),
        );
      }
      expect(items).toBeGreaterThan(1000);
      answers.expectCommitted();
    });

    test("every community, its members, moderators and tweets in every order and time filter", async () => {
      const answers = new Answers("communities");
      let items = 0;
      for (const community of [...spread(world.communities, 100), "1", "abc"]) {
        await answers.read(`community(${community})`, () => store.community(community));
        items += await answers.walk(`communityMembers(${community})`, (after) =>
          store.communityMembers(community, { size: 20, after }),
        );
        items += await answers.walk(`communityModerators(${community})`, (after) =>
          store.communityModerators(community, { size: 2, after }),
        );
        for (const sort of SORTS) {
          for (const filter of TIME_FILTERS) {
            items += await answers.walk(
              `communityTweets(${community}, ${sort}, ${filter})`,
              (after) => store.communityTweets(community, sort, filter, { size: 25, after }),
              20,
            );
          }
        }
      }
      expect(items).toBeGreaterThan(1000);
      answers.expectCommitted();
    });

    test("community search by words, largest first, every page", async () => {
      const answers = new Answers("community-search");
      const queries = [
        examples.community_query,
        examples.community_query.toUpperCase(),
        "",
        "   ",
        "the",
        "and of",
        "night sky",
        "Night-Sky!",
        "nothing_matches_this",
        "#ai",
        "café",
      ];
      let items = 0;
      for (const query of queries) {
        for (const size of [1, 5, 100]) {
          items += await answers.walk(`searchCommunities(${JSON.stringify(query)}) by ${size}`, (after) =>
            store.searchCommunities(query, { size, after }),
          );
        }
      }
      expect(items).toBeGreaterThan(20);
      answers.expectCommitted();
    });

    test("trends of a place, by rank, and an unknown place", async () => {
      const answers = new Answers("trends");
      for (const [woeid, limit] of [
        [examples.woeid, 1],
        [examples.woeid, 20],
        [examples.woeid, 100],
        ["999999999", 20],
        ...spread(world.woeids, 10).map((woeid) => [woeid, 50] as const),
      ] as const) {
        await answers.read(`trends(${woeid}, ${limit})`, () => store.trends(woeid, limit));
      }
      expect((await store.trends(examples.woeid, 100))?.length).toBeGreaterThan(0);
      answers.expectCommitted();
    });

    test("a cursor of another shape is an invalid page token", async () => {
      const answers = new Answers("foreign-cursors");
      const cursors: Cursor[] = [["x"], [1, 2, 3], [], ["1", "2"]];
      for (const after of cursors) {
        const page = { size: 5, after };
        const shape = JSON.stringify(after);
        await answers.read(`timeline after ${shape}`, () => store.timeline(examples.user_id, "tweets", page));
        await answers.read(`graphUsers after ${shape}`, () => store.graphUsers(examples.user_id, "followers", page));
        await answers.read(`graphIds after ${shape}`, () => store.graphIds(examples.user_id, "followers", page));
        await answers.read(`communityTweets after ${shape}`, () =>
          store.communityTweets(examples.community_id, "likes", "all", page),
        );
        await answers.read(`searchCommunities after ${shape}`, () => store.searchCommunities("", page));
      }
      await expect(store.timeline(examples.user_id, "tweets", { size: 5, after: ["x"] })).rejects.toMatchObject({
        code: "invalid_request",
      });
      answers.expectCommitted();
    });

    test("recent search: every page newest first, and by relevancy matches only, each once", async () => {
      await checkRecentSearch(store, world.truth);
      await checkRelevancySearch(store, world.truth);
    });

    test("counts per minute, hour and day over the world's last days, as the matcher counts", async () => {
      await checkCounts(store, world.truth);
    });
  });
}
