// Protected accounts on the default world: their tweets are missing from every tweet read (lookups,
// timelines, conversations, threads, quotes, retweets, lists, communities, articles, search) while
// public authors' tweets around them are still served, page by page.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type CommunityTweetSort, parseQuery, type SearchSortOrder, type TimelineKind, type Tweet } from "@social/core";
import { examples } from "@social/fixtures";
import {
  type BuiltWorld,
  buildDefaultWorld,
  byIdAsc,
  byIdDesc,
  communityTweetOrders,
  isVisible,
  plainUser,
  walk,
} from "./world-helpers.ts";

let world: BuiltWorld;
// Building the default world takes a few seconds, more on a busy machine.
beforeAll(() => {
  world = buildDefaultWorld();
}, 60_000);
afterAll(() => world.db.close());

const visible = (tweet: Tweet) => isVisible(world.truth, tweet);
const referenced = (tweet: Tweet, type: string) => tweet.referenced_tweets?.find((ref) => ref.type === type)?.id;

/** The tweets grouped by `key`, keeping the groups that hold both a protected and a public author's tweet. */
function mixedGroups(key: (tweet: Tweet) => string | undefined): Map<string, Tweet[]> {
  const groups = new Map<string, Tweet[]>();
  for (const tweet of world.truth.tweets) {
    const group = key(tweet);
    if (group !== undefined) groups.set(group, [...(groups.get(group) ?? []), tweet]);
  }
  for (const [group, tweets] of groups) {
    if (tweets.every(visible) || !tweets.some(visible)) groups.delete(group);
  }
  return groups;
}

const protectedTweets = () => world.truth.tweets.filter((tweet) => !visible(tweet));

describe("the default world", () => {
  test("has protected authors with tweets of every kind the reads serve", () => {
    const hidden = protectedTweets();
    expect(new Set(hidden.map((tweet) => tweet.author_id)).size).toBeGreaterThan(10);
    expect(hidden.filter((tweet) => tweet.in_reply_to_user_id !== undefined).length).toBeGreaterThan(10);
    expect(hidden.filter((tweet) => tweet.quoted_tweet_id !== undefined).length).toBeGreaterThan(2);
    expect(hidden.filter((tweet) => tweet.media !== undefined).length).toBeGreaterThan(2);
    expect(hidden.filter((tweet) => world.truth.communityOf.has(tweet.id)).length).toBeGreaterThan(2);
  });

  test("every tweet carries its author's protected flag, and only public tweets are in the search index", () => {
    const flags = world.db.query("SELECT id, author_protected FROM tweets ORDER BY id").all() as {
      id: number;
      author_protected: number;
    }[];
    expect(flags).toEqual(
      world.truth.tweets.map((tweet) => ({ id: Number(tweet.id), author_protected: visible(tweet) ? 0 : 1 })),
    );
    const indexed = world.db.query("SELECT id FROM tweets_fts_docsize ORDER BY id").all() as { id: number }[];
    expect(indexed.map((row) => String(row.id))).toEqual(world.truth.tweets.filter(visible).map((tweet) => tweet.id));
  });
});

describe("lookups", () => {
  test("a protected tweet is not found, alone or among public ones", async () => {
    const [hidden] = protectedTweets();
    if (hidden === undefined) throw new Error("no protected tweet");
    expect(await world.store.tweetsByIds([hidden.id])).toEqual([]);
    const found = await world.store.tweetsByIds([examples.tweet_id, hidden.id, examples.reply_tweet_id]);
    expect(found.map((tweet) => tweet.id)).toEqual([examples.tweet_id, examples.reply_tweet_id]);
  });

  test("the author of protected tweets is still a user like any other", async () => {
    const [hidden] = protectedTweets();
    const author = world.truth.users.get(hidden?.author_id ?? "");
    if (author === undefined) throw new Error("no protected author");
    expect(await world.store.usersByIds([author.id])).toStrictEqual([author]);
  });

  test("an article is as visible as its tweet", async () => {
    const article = await world.store.article(examples.article_tweet_id);
    expect(article?.tweet_id).toBe(examples.article_tweet_id);
    // No protected account writes articles in the default world, so one is made protected for a moment.
    world.db.run("SAVEPOINT protect_article");
    try {
      world.db.run("UPDATE tweets SET author_protected = 1 WHERE id = ?", [Number(examples.article_tweet_id)]);
      expect(await world.store.article(examples.article_tweet_id)).toBeUndefined();
    } finally {
      world.db.run("ROLLBACK TO protect_article");
      world.db.run("RELEASE protect_article");
    }
  });
});

describe("timelines", () => {
  const kinds: TimelineKind[] = ["tweets", "replies", "media"];

  test("a protected author's timelines are empty pages; a public author's are not", async () => {
    const authors = new Set(protectedTweets().map((tweet) => tweet.author_id));
    for (const authorId of authors) {
      for (const kind of kinds) expect(await world.store.timeline(authorId, kind, { size: 5 })).toEqual({ items: [] });
    }
    for (const kind of kinds) {
      expect((await world.store.timeline(examples.media_user_id, kind, { size: 5 }))?.items).toHaveLength(5);
    }
  });
});

describe("tweets below a tweet", () => {
  test("quotes: the public quotes of a tweet quoted by protected accounts too, every page", async () => {
    const groups = mixedGroups((tweet) => tweet.quoted_tweet_id);
    expect(groups.size).toBeGreaterThan(0);
    for (const [tweetId, quotes] of groups) {
      const { items } = await walk((page) => world.store.quotes(tweetId, page), 2);
      expect(items).toStrictEqual(quotes.filter(visible).sort(byIdDesc));
    }
  });

  test("retweeters: the public accounts that retweeted, not the protected ones, every page", async () => {
    const groups = mixedGroups((tweet) => referenced(tweet, "retweeted"));
    expect(groups.size).toBeGreaterThan(0);
    for (const [tweetId, retweets] of groups) {
      const truth = retweets
        .filter(visible)
        .sort(byIdDesc)
        .map((tweet) => plainUser(world.truth.users.get(tweet.author_id) as never));
      const { items } = await walk((page) => world.store.retweeters(tweetId, page), 2);
      expect(items).toStrictEqual(truth);
    }
  });

  test("conversation: the public replies, those below a protected reply included, every page", async () => {
    const groups = mixedGroups((tweet) => (tweet.conversation_id === tweet.id ? undefined : tweet.conversation_id));
    expect(groups.size).toBeGreaterThan(10);
    for (const [rootId, replies] of groups) {
      if (!visible(world.truth.tweetsById.get(rootId) as Tweet)) continue;
      const { items } = await walk((page) => world.store.conversation(rootId, page), 2);
      expect(items).toStrictEqual(replies.filter(visible).sort(byIdAsc));
    }
  });

  test("reads below a protected tweet find no tweet", async () => {
    for (const hidden of protectedTweets()) {
      expect(await world.store.quotes(hidden.id, { size: 5 })).toBeUndefined();
      expect(await world.store.retweeters(hidden.id, { size: 5 })).toBeUndefined();
      expect(await world.store.conversation(hidden.id, { size: 5 })).toBeUndefined();
      expect(await world.store.selfThread(hidden.id, 10)).toBeUndefined();
    }
  });
});

describe("self-thread", () => {
  test("when the root's author is protected, a reply's thread starts at the reply's own chain, incomplete", async () => {
    const root = world.truth.tweetsById.get(examples.thread_tweet_id) as Tweet;
    const reply = world.truth.tweets.find(
      (tweet) => tweet.conversation_id === root.id && tweet.author_id !== root.author_id,
    ) as Tweet;
    // No public reply lies below a protected root in the default world, so the root's author turns
    // protected for a moment.
    world.db.run("SAVEPOINT protect_root");
    try {
      world.db.run("UPDATE tweets SET author_protected = 1 WHERE author_id = ?", [Number(root.author_id)]);
      expect(await world.store.selfThread(root.id, 10)).toBeUndefined();
      const result = await world.store.selfThread(reply.id, 10);
      expect(result).toMatchObject({ conversationId: root.id, authorId: reply.author_id, complete: false });
      expect(result?.tweets.every((tweet) => tweet.author_id === reply.author_id)).toBe(true);
      expect(result?.tweets.map((tweet) => tweet.id)).toContain(reply.id);
    } finally {
      world.db.run("ROLLBACK TO protect_root");
      world.db.run("RELEASE protect_root");
    }
  });
});

describe("lists", () => {
  test("tweets: the public members' tweets, newest first, every page", async () => {
    const listIds = new Set(world.truth.records.list_member.map((member) => member.listId));
    let checked = 0;
    for (const listId of listIds) {
      const members = new Set(
        world.truth.records.list_member.filter((m) => m.listId === listId).map((member) => member.userId),
      );
      const tweets = world.truth.tweets.filter((tweet) => members.has(tweet.author_id));
      if (tweets.every(visible)) continue;
      checked++;
      const { items } = await walk((page) => world.store.listTweets(listId, page), 20);
      expect(items).toStrictEqual(tweets.filter(visible).sort(byIdDesc));
      expect(items.length).toBeGreaterThan(0);
    }
    expect(checked).toBeGreaterThan(0);
  });
});

describe("communities", () => {
  const sorts = communityTweetOrders(() => world.truth);

  test("tweets: the public authors' tweets in every sort, every page", async () => {
    const groups = mixedGroups((tweet) => world.truth.communityOf.get(tweet.id));
    expect(groups.size).toBeGreaterThan(0);
    for (const [communityId, tweets] of groups) {
      for (const sort of Object.keys(sorts) as CommunityTweetSort[]) {
        const { items } = await walk((page) => world.store.communityTweets(communityId, sort, "all", page), 4);
        expect(items).toStrictEqual(tweets.filter(visible).sort(sorts[sort]));
      }
    }
  });
});

describe("search", () => {
  test("from: a protected author finds nothing in either sort order", async () => {
    const authors = new Set(protectedTweets().map((tweet) => tweet.author_id));
    for (const authorId of authors) {
      const query = parseQuery(`from:${world.truth.users.get(authorId)?.username}`);
      for (const sortOrder of ["recency", "relevancy"] as SearchSortOrder[]) {
        expect(await world.store.searchTweets(query, sortOrder, { size: 20 })).toEqual({ items: [] });
      }
    }
  });

  test("a word of a protected tweet finds only public tweets", async () => {
    const word = "coffee";
    const holding = (tweet: Tweet) => tweet.text.toLowerCase().includes(word);
    expect(protectedTweets().some(holding)).toBe(true);
    for (const sortOrder of ["recency", "relevancy"] as SearchSortOrder[]) {
      const { items } = await walk((page) => world.store.searchTweets(parseQuery(word), sortOrder, page), 20);
      expect(items.length).toBeGreaterThan(0);
      expect(items.every(visible)).toBe(true);
    }
  });
});
