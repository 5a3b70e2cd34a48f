// Tweet reads of the SqliteStore on the default world: lookups, quotes, retweeters, conversations,
// self-threads, articles and search, each compared with the truth computed from the generator's records.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  Article,
  matches,
  parseQuery,
  type SearchSortOrder,
  type Tweet,
  Tweet as TweetSchema,
  User,
} from "@social/core";
import { examples } from "@social/fixtures";
import * as v from "valibot";
import {
  type BuiltWorld,
  buildDefaultWorld,
  byIdAsc,
  byIdDesc,
  isVisible,
  plainUser,
  searchDocumentIn,
  walk,
} from "./world-helpers.ts";

let world: BuiltWorld;
// Building the default world takes a few seconds, more on a busy machine.
beforeAll(() => {
  world = buildDefaultWorld();
}, 60_000);
afterAll(() => world.db.close());

const referenced = (tweet: Tweet, type: string) => tweet.referenced_tweets?.find((ref) => ref.type === type)?.id;
const visible = (tweet: Tweet) => isVisible(world.truth, tweet);

describe("tweet lookups", () => {
  test("every public tweet of the world reads back exactly as generated, optional fields absent", async () => {
    const { tweets } = world.truth;
    const found = await world.store.tweetsByIds(tweets.map((tweet) => tweet.id));
    expect(found).toStrictEqual(tweets.filter(visible));
    for (const tweet of found.slice(0, 500)) v.parse(TweetSchema, tweet);
  });

  test("tweetsByIds keeps the order asked and skips unknown ids", async () => {
    const ids = [examples.thread_tweet_id, "5", examples.tweet_id, "not-an-id", examples.reply_tweet_id];
    const found = await world.store.tweetsByIds(ids);
    expect(found.map((tweet) => tweet.id)).toEqual([
      examples.thread_tweet_id,
      examples.tweet_id,
      examples.reply_tweet_id,
    ]);
  });
});

describe("tweets below a tweet", () => {
  test("quotes: most recent first, every page", async () => {
    const truth = world.truth.tweets
      .filter((tweet) => tweet.quoted_tweet_id === examples.quoted_tweet_id)
      .sort(byIdDesc);
    expect(truth.length).toBeGreaterThanOrEqual(3);
    const { items } = await walk((page) => world.store.quotes(examples.quoted_tweet_id, page), 2);
    expect(items).toStrictEqual(truth);
    expect(items.every((tweet) => tweet.is_quote_status)).toBe(true);
  });

  test("retweeters: most recent retweet first, every page", async () => {
    for (const tweetId of [examples.quoted_tweet_id, examples.retweeted_tweet_id]) {
      const truth = world.truth.tweets
        .filter((tweet) => referenced(tweet, "retweeted") === tweetId)
        .sort(byIdDesc)
        .map((tweet) => plainUser(world.truth.users.get(tweet.author_id) as never));
      expect(truth.length).toBeGreaterThanOrEqual(2);
      const { items } = await walk((page) => world.store.retweeters(tweetId, page), 2);
      expect(items).toStrictEqual(truth);
      for (const user of items) v.parse(User, user);
    }
  });

  test("conversation: the replies below the tweet, oldest first, the tweet itself excluded", async () => {
    const children = new Map<string, Tweet[]>();
    for (const tweet of world.truth.tweets) {
      const parent = referenced(tweet, "replied_to");
      if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), tweet]);
    }
    const below = (id: string): Tweet[] => (children.get(id) ?? []).flatMap((child) => [child, ...below(child.id)]);
    // A root, a tweet inside the thread (only its descendants, not its siblings) and a plain reply.
    const threadPart = world.truth.tweets.find(
      (tweet) =>
        tweet.conversation_id === examples.thread_tweet_id &&
        referenced(tweet, "replied_to") === examples.thread_tweet_id,
    );
    const sample = world.truth.tweets
      .filter((tweet, index) => index % 97 === 0 && visible(tweet))
      .map((tweet) => tweet.id);
    const ids = [examples.thread_tweet_id, examples.tweet_id, threadPart?.id ?? "", examples.reply_tweet_id, ...sample];
    for (const tweetId of ids) {
      const truth = below(tweetId).filter(visible).sort(byIdAsc);
      const { items } = await walk((page) => world.store.conversation(tweetId, page), 2);
      expect(items).toStrictEqual(truth);
    }
    expect(below(examples.thread_tweet_id).length).toBeGreaterThan(6);
  });

  test("the world's conversation ids name the root of each reply chain, as the conversation read assumes", () => {
    const root = (tweet: Tweet): string => {
      const parent = world.truth.tweetsById.get(referenced(tweet, "replied_to") ?? "");
      return parent === undefined ? tweet.id : root(parent);
    };
    for (const tweet of world.truth.tweets) expect(tweet.conversation_id).toBe(root(tweet));
  });

  test("reads below a missing tweet are undefined; a tweet without any is an empty page", async () => {
    const reads = [
      (id: string) => world.store.quotes(id, { size: 5 }),
      (id: string) => world.store.retweeters(id, { size: 5 }),
      (id: string) => world.store.conversation(id, { size: 5 }),
    ];
    for (const read of reads) {
      expect(await read("12345")).toBeUndefined();
      expect(await read("x")).toBeUndefined();
    }
    const lonely = world.truth.tweets.find((tweet) => tweet.reply_count === 0 && tweet.quote_count === 0);
    const retweeted = new Set(world.truth.tweets.map((tweet) => referenced(tweet, "retweeted")));
    if (lonely === undefined || retweeted.has(lonely.id)) throw new Error("no lonely tweet");
    expect(await world.store.quotes(lonely.id, { size: 5 })).toEqual({ items: [] });
    expect(await world.store.retweeters(lonely.id, { size: 5 })).toEqual({ items: [] });
    expect(await world.store.conversation(lonely.id, { size: 5 })).toEqual({ items: [] });
  });
});

describe("self-thread", () => {
  const thread = () => {
    const root = world.truth.tweetsById.get(examples.thread_tweet_id) as Tweet;
    const chain = new Set([root.id]);
    return world.truth.tweets.filter((tweet) => {
      if (tweet.id !== root.id) {
        const parent = referenced(tweet, "replied_to");
        if (tweet.author_id !== root.author_id || parent === undefined || !chain.has(parent)) return false;
      }
      chain.add(tweet.id);
      return true;
    });
  };

  test("the root author's chain, oldest first, from any tweet of the conversation", async () => {
    const truth = thread();
    expect(truth).toHaveLength(5);
    const root = truth[0] as Tweet;
    const reply = world.truth.tweets.find(
      (tweet) => tweet.conversation_id === root.id && tweet.author_id !== root.author_id,
    ) as Tweet;
    for (const from of [root.id, (truth[3] as Tweet).id, reply.id]) {
      expect(await world.store.selfThread(from, 25)).toStrictEqual({
        conversationId: root.id,
        authorId: root.author_id,
        complete: true,
        tweets: truth,
      });
    }
  });

  test("capped at max, then incomplete", async () => {
    const result = await world.store.selfThread(examples.thread_tweet_id, 3);
    expect(result?.complete).toBe(false);
    expect(result?.tweets).toStrictEqual(thread().slice(0, 3));
    expect((await world.store.selfThread(examples.thread_tweet_id, 5))?.complete).toBe(true);
  });

  test("a lone tweet is its own complete thread; a missing one is undefined", async () => {
    const lone = world.truth.tweets.find((tweet) => tweet.reply_count === 0 && !tweet.referenced_tweets) as Tweet;
    expect(await world.store.selfThread(lone.id, 10)).toStrictEqual({
      conversationId: lone.id,
      authorId: lone.author_id,
      complete: true,
      tweets: [lone],
    });
    expect(await world.store.selfThread("12345", 10)).toBeUndefined();
  });

  test("without its root, the thread starts at the top of the tweet's own chain and is incomplete", async () => {
    const root = examples.thread_tweet_id;
    world.db.run("SAVEPOINT lose_root");
    try {
      world.db.run("DELETE FROM tweets WHERE id = ?", [Number(root)]);
      const truth = thread().slice(1);
      const result = await world.store.selfThread((truth[2] as Tweet).id, 10);
      expect(result).toStrictEqual({
        conversationId: root,
        authorId: (truth[0] as Tweet).author_id,
        complete: false,
        tweets: truth,
      });
    } finally {
      world.db.run("ROLLBACK TO lose_root");
      world.db.run("RELEASE lose_root");
    }
  });
});

describe("article", () => {
  test("the article with its author's public fields", async () => {
    const record = world.truth.records.article.find((a) => a.article.tweet_id === examples.article_tweet_id);
    const author = world.truth.users.get(record?.authorId ?? "");
    if (record === undefined || author === undefined) throw new Error("no example article");
    const article = await world.store.article(examples.article_tweet_id);
    const { created_at: _createdAt, media_count: _mediaCount, ...authorFields } = plainUser(author);
    expect(article).toStrictEqual({ ...record.article, author: authorFields });
    v.parse(Article, article);
  });

  test("undefined for a tweet without an article and for a missing tweet", async () => {
    expect(await world.store.article(examples.tweet_id)).toBeUndefined();
    expect(await world.store.article("12345")).toBeUndefined();
  });
});

describe("search on the default world", () => {
  const queries = [
    examples.search_query,
    `${examples.search_query} -filter:replies`,
    `from:${examples.username.toUpperCase()}`,
    "lang:fr",
    "#BlackFriday OR #F1",
    `"${examples.search_query} should"`,
    "filter:links min_faves:2",
    "since:2026-11-18 until:2026-11-19 lang:en",
    "min_retweets:3 -lang:en",
    "-coffee -the -a",
    // X API v2's operators.
    `${examples.search_query} -is:retweet`,
    "is:retweet",
    "is:quote has:links",
    "has:media -is:reply",
    "has:hashtags is:verified",
    `has:mentions from:${examples.username}`,
    `conversation_id:${examples.thread_tweet_id}`,
    `to:${examples.username}`,
    `${examples.search_query} since:2026-11-18T06:30:00Z until:2026-11-19T18:00:00.000Z`,
    `${examples.search_query} since_id:${examples.tweet_id}`,
    `${examples.search_query} until_id:${examples.tweet_id}`,
  ];

  for (const text of queries) {
    test(`${JSON.stringify(text)}: every page of both sort orders`, async () => {
      const query = parseQuery(text);
      const truth = world.truth.tweets
        .filter((tweet) => visible(tweet) && matches(query, searchDocumentIn(world.truth, tweet)))
        .sort(byIdDesc);
      expect(truth.length).toBeGreaterThan(0);
      for (const sortOrder of ["recency", "relevancy"] as SearchSortOrder[]) {
        const { items } = await walk((page) => world.store.searchTweets(query, sortOrder, page), 20);
        if (sortOrder === "recency") expect(items).toStrictEqual(truth);
        else expect([...items].sort(byIdDesc)).toStrictEqual(truth);
      }
    });
  }

  test("the example query matches well over 60 tweets and relevancy puts the best matches first", async () => {
    const query = parseQuery(examples.search_query);
    const { items } = await walk((page) => world.store.searchTweets(query, "relevancy", page), 20);
    expect(items.length).toBeGreaterThan(60);
    // bm25 favours short texts that hold the word: the first page is shorter than the average match.
    const length = (tweets: Tweet[]) => tweets.reduce((sum, tweet) => sum + tweet.text.length, 0) / tweets.length;
    expect(length(items.slice(0, 20))).toBeLessThan(length(items));
  });
});
