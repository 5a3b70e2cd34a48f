// GET /2/users/{id}/mentions (#36) as X client code calls it: twarc2's requests over plain HTTP (its
// default fields and expansions, max_results=100, pagination_token, RFC 3339 times with an offset),
// twitter-api-v2's userMentionTimeline, and what every caller relies on: each page's tweets name the
// user, paging loses and repeats nothing, the read ranges bound it, and it costs what the same number
// of tweets from /2/users/{id}/tweets costs.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { costOf, PER_ITEM } from "@social/core";
import { examples } from "@social/fixtures";
import type { TweetV2 } from "twitter-api-v2";
import { startTestServer, type TestServer, walkV1 } from "./harness.ts";
import { charging, TWARC_EVERYTHING, twitterClient } from "./x-clients.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
}, 60_000);
afterAll(() => server.close());

const user = examples.user_id;

interface MentionsPage {
  data?: TweetV2[];
  includes?: { users?: { id: string; username: string }[] };
  meta: { result_count: number; newest_id?: string; oldest_id?: string; next_token?: string };
}

/** Every page of a /2 path, following meta.next_token as pagination_token, as twarc2 pages. */
async function twarcWalk(path: string, key: string): Promise<MentionsPage[]> {
  const pages: MentionsPage[] = [];
  let token: string | undefined;
  do {
    const response = await server.get(token ? `${path}&pagination_token=${token}` : path, key);
    expect([path, response.status]).toEqual([path, 200]);
    const page = (await response.json()) as MentionsPage;
    pages.push(page);
    token = page.meta.next_token;
  } while (token);
  return pages;
}

/** The ids of a /v1 read, through every page. */
async function v1Ids(path: string): Promise<string[]> {
  return walkV1(server, path, (await server.account(1_000_000)).key);
}

/** twarc2's form of a time: whole seconds and +00:00. */
const twarcTime = (ms: number) => `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}+00:00`;

describe("twarc2 mentions", () => {
  it("its default request, every page: the tweets that name the user, newest first, authors and mentioned users included", async () => {
    const { key } = await server.account(1_000_000);
    const pages = await twarcWalk(`/2/users/${user}/mentions?max_results=100&${TWARC_EVERYTHING}`, key);
    const tweets = pages.flatMap((page) => page.data ?? []);
    const ids = tweets.map((tweet) => tweet.id);
    expect(pages.length).toBeGreaterThan(1);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : -1)));
    expect(ids).toEqual(await v1Ids(`/v1/users/${user}/mentions`));
    for (const page of pages) {
      const data = page.data ?? [];
      expect(page.meta).toMatchObject({
        result_count: data.length,
        newest_id: data[0]?.id,
        oldest_id: data.at(-1)?.id,
      });
      const included = new Set((page.includes?.users ?? []).map((included) => included.id));
      for (const tweet of data) {
        const named = (tweet.entities?.mentions ?? []).map((mention) => mention.id);
        expect([tweet.id, named]).toEqual([tweet.id, expect.arrayContaining([user])]);
        for (const id of [tweet.author_id as string, ...named])
          expect([tweet.id, included.has(id ?? "")]).toEqual([tweet.id, true]);
      }
    }
  });

  it("since_id, until_id, start_time and end_time as twarc2 sends them bound every page", async () => {
    const { key } = await server.account(1_000_000);
    const all = (await twarcWalk(`/2/users/${user}/mentions?max_results=100&tweet.fields=created_at`, key)).flatMap(
      (page) => page.data ?? [],
    );
    const [newer, older] = [all[20], all[120]] as [TweetV2, TweetV2];
    const [startMs, endMs] = [Date.parse(older.created_at as string), Date.parse(newer.created_at as string)];
    const windows: { params: Record<string, string>; within: (tweet: TweetV2) => boolean }[] = [
      { params: { since_id: older.id }, within: (tweet) => BigInt(tweet.id) > BigInt(older.id) },
      { params: { until_id: newer.id }, within: (tweet) => BigInt(tweet.id) < BigInt(newer.id) },
      {
        params: { start_time: twarcTime(startMs), end_time: twarcTime(endMs) },
        within: (tweet) => {
          const at = Date.parse(tweet.created_at as string);
          return at >= Math.floor(startMs / 1000) * 1000 && at < Math.floor(endMs / 1000) * 1000;
        },
      },
    ];
    for (const { params, within } of windows) {
      const query = new URLSearchParams({ max_results: "5", ...params, "tweet.fields": "created_at" });
      const pages = await twarcWalk(`/2/users/${user}/mentions?${query}`, key);
      const expected = all.filter(within).map((tweet) => tweet.id);
      expect(expected.length).toBeGreaterThan(10);
      expect([params, pages.flatMap((page) => page.data ?? []).map((tweet) => tweet.id)]).toEqual([params, expected]);
    }
  });
});

describe("what it costs and what it refuses", () => {
  it("a page costs what a page of /2/users/{id}/tweets of as many tweets costs", async () => {
    for (const max_results of [5, 37, 60]) {
      const mentions = await charging(server, (key) =>
        twitterClient(server, key).v2.userMentionTimeline(user, { max_results }),
      );
      const tweets = await charging(server, (key) => twitterClient(server, key).v2.userTimeline(user, { max_results }));
      expect(mentions.result.meta.result_count).toBe(max_results);
      expect(tweets.result.meta.result_count).toBe(max_results);
      expect([max_results, mentions.charged]).toEqual([max_results, tweets.charged]);
      expect(mentions.charged).toBe(costOf(PER_ITEM, max_results));
    }
  });

  it("an unknown user, or max_results outside 5 to 100, answers as /2/users/{id}/tweets does, uncharged", async () => {
    for (const query of ["", "?max_results=4", "?max_results=101"]) {
      const answers = [];
      for (const timeline of ["mentions", "tweets"]) {
        const id = query === "" ? "999999999999" : user;
        const { result, charged } = await charging(server, async (key) => {
          const response = await server.get(`/2/users/${id}/${timeline}${query}`, key);
          const body = (await response.json()) as { title?: string; error?: { code: string; message: string } };
          return { status: response.status, title: body.title, code: body.error?.code };
        });
        expect(charged).toBe(0);
        answers.push(result);
      }
      expect([query, answers[0]]).toEqual([query, answers[1]]);
      expect(answers[0]?.status).toBe(query === "" ? 404 : 400);
    }
  });
});
