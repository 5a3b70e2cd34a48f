// `import` as an operator runs it: a real process on a SQLite file or a real PostgreSQL database, with
// the sample file docs/operations.md imports (X API v2's real shapes: media, note_tweet, withheld
// content, a deleted referenced post, users without public_metrics) and files of bad lines, checked
// through the store the servers read.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import type { Backend } from "@social/composition";
import { parseQuery } from "@social/core";
import { runAdmin } from "@social/testing";
import { type Json, SAMPLE, type SamplePage, samplePages, testDatabases, withStore } from "./databases.ts";

const pages = samplePages();
const [first, second] = pages as [SamplePage, SamplePage];
const pour = first.data[0] as Json & { id: string; public_metrics: Json };
const ada = first.includes?.users?.[0] as Json & { id: string; public_metrics: Json };
const reply = first.data[1] as Json & { id: string };
const long = second.data[1] as Json & { id: string; note_tweet: { text: string } };

const databases = testDatabases("import");
const newDatabase = (adapter: "sqlite" | "postgres") => databases.create(adapter);

function file(name: string, lines: readonly unknown[]): string {
  const path = join(databases.dir, name);
  writeFileSync(path, `${lines.map((line) => (typeof line === "string" ? line : JSON.stringify(line))).join("\n")}\n`);
  return path;
}

function adminImport(databaseUrl: string, ...args: string[]) {
  return runAdmin(databaseUrl, ["import", ...args]);
}

/**
 * The summary's row for `kind` (added, updated and kept) beside everything the run printed, so that a
 * mismatch shows the whole run's output in its diff.
 */
function outcomes(run: { stdout: string; stderr: string }, kind: "users" | "tweets") {
  const row = run.stdout.split("\n").find((line) => line.startsWith(`${kind} `));
  return { [kind]: (row ?? "").trim().split(/\s+/).slice(1).map(Number), output: `${run.stdout}${run.stderr}` };
}

async function searchIds(backend: Backend, query: string): Promise<string[]> {
  const page = await backend.store.searchTweets(parseQuery(query), "recency", { size: 100 });
  return page.items.map((tweet) => tweet.id);
}

describe.each(["sqlite", "postgres"] as const)("import on %s", (adapter) => {
  test("the sample pages: every shape X returns becomes what the API serves, and a second import changes nothing", async () => {
    const url = await newDatabase(adapter);
    const run = await adminImport(url, SAMPLE);
    expect(run.code).toBe(0);
    expect(outcomes(run, "users")).toMatchObject({ users: [5, 0, 0] });
    expect(outcomes(run, "tweets")).toMatchObject({ tweets: [7, 0, 0] });
    expect(run.stdout).toContain("1 of the pages' errors");
    expect(run.stderr).toContain("lines/s");
    await withStore(url, async ({ store }) => {
      const [photo] = await store.tweetsByIds([pour.id]);
      // 19-digit ids come back exact, and media come from includes.media (a video by its still).
      expect(photo?.id).toBe(pour.id);
      expect(photo?.media).toEqual([
        { type: "photo", url: "https://pbs.twimg.com/media/Gc1photo.jpg" },
        { type: "video", url: "https://pbs.twimg.com/ext_tw_video_thumb/1/pu/img/still.jpg" },
      ]);
      expect(photo?.like_count).toBe(pour.public_metrics.like_count as number);
      expect(photo?.quoted_tweet_id).toBe((pour.referenced_tweets as { id: string }[])[0]?.id as string);
      const [note] = await store.tweetsByIds([long.id]);
      expect(note?.text).toBe(long.note_tweet.text);
      expect(await searchIds({ store } as Backend, "#porto")).toEqual([long.id]);
      const withheld = second.data[2] as { id: string; text: string };
      expect((await store.tweetsByIds([withheld.id]))[0]?.text).toBe(withheld.text);
      // A reply to a post X reported deleted is kept, with the reference as given.
      const orphan = second.data[0] as { id: string; referenced_tweets: { type: "replied_to"; id: string }[] };
      expect((await store.tweetsByIds([orphan.id]))[0]?.referenced_tweets).toEqual(orphan.referenced_tweets);
      const quiet = await store.userByUsername("quiet_one");
      expect(quiet).toMatchObject({ follower_count: 0, tweet_count: 0, verified: false });
      expect(quiet?.profile_image_url).toContain("default_profile");
      expect((await store.userByUsername("early"))?.created_at).toBe("2006-03-21T20:50:14.000Z");
      expect(await store.clockMs()).toBe(Date.parse("2026-11-24T13:00:00.000Z"));
      expect((await store.trends("1", 3))?.map(({ name, tweet_count }) => [name, tweet_count])).toEqual([
        ["#coffee", 4],
        ["#Brewing", 2],
        ["#Lisbon", 1],
      ]);
      expect(await store.showcase()).toEqual({ kind: "imported", username: "ada_writes", query: "#coffee" });
    });

    const again = await adminImport(url, SAMPLE);
    expect(outcomes(again, "users")).toMatchObject({ users: [0, 0, 5] });
    expect(outcomes(again, "tweets")).toMatchObject({ tweets: [0, 0, 7] });
  });

  test("a later copy's counts win, one without counts keeps them, and a rename reaches search", async () => {
    const url = await newDatabase(adapter);
    expect((await adminImport(url, SAMPLE)).code).toBe(0);
    const earlier = { ...pour, public_metrics: { ...pour.public_metrics, like_count: 1 } };
    const liked = { ...pour, public_metrics: { ...pour.public_metrics, like_count: 900 } };
    const bare = { id: pour.id, text: pour.text, author_id: pour.author_id };
    const renamed = {
      ...ada,
      username: "ada_quill",
      public_metrics: { ...ada.public_metrics, tweet_count: (ada.public_metrics.tweet_count as number) + 1 },
    };
    const lines = [{ data: [earlier] }, { data: [liked] }, { data: [bare] }, renamed];
    const run = await adminImport(url, file(`newer-${adapter}.jsonl`, lines));
    expect(run.code).toBe(0);
    expect(outcomes(run, "tweets")).toMatchObject({ tweets: [0, 1, 0] });
    expect(outcomes(run, "users")).toMatchObject({ users: [0, 1, 0] });
    await withStore(url, async (backend) => {
      expect((await backend.store.tweetsByIds([pour.id]))[0]?.like_count).toBe(900);
      expect(await backend.store.userByUsername("ada_writes")).toBeUndefined();
      expect(await searchIds(backend, "from:ada_writes")).toEqual([]);
      expect((await searchIds(backend, "from:ada_quill")).sort()).toEqual([long.id, pour.id].sort());
      expect(await searchIds(backend, "to:ada_quill")).toEqual([reply.id]);
    });
  });

  test("later copies keep what they name but do not give: media, replies, verified, counts, a long text", async () => {
    const url = await newDatabase(adapter);
    expect((await adminImport(url, SAMPLE)).code).toBe(0);
    const retweet = second.data[3] as Json;
    const { in_reply_to_user_id: _repliedTo, ...referencesOnly } = reply;
    const { note_tweet: _note, ...cut } = long;
    const { media_count: _media, ...counts } = ada.public_metrics;
    const { verified: _verified, ...unflagged } = ada;
    const copies = [
      // twarc2's default expansions leave a retweeted post's media keys unexpanded.
      { data: [retweet], includes: { tweets: [pour] } },
      { data: [referencesOnly, cut] },
      { ...unflagged, verified_type: "blue", public_metrics: counts },
    ];
    const path = file(`partial-${adapter}.jsonl`, copies);
    const run = await adminImport(url, path);
    expect(run.code).toBe(0);
    expect(outcomes(run, "tweets")).toMatchObject({ tweets: [0, 0, 4] });
    expect(outcomes(run, "users")).toMatchObject({ users: [0, 1, 0] });
    await withStore(url, async (backend) => {
      const [photo, replied, note] = await backend.store.tweetsByIds([pour.id, reply.id, long.id]);
      expect(photo?.media?.map((item) => item.type)).toEqual(["photo", "video"]);
      expect(replied?.in_reply_to_user_id).toBe(ada.id);
      expect(await searchIds(backend, "to:ada_writes")).toEqual([reply.id]);
      expect(note?.text).toBe(long.note_tweet.text);
      expect(await backend.store.userByUsername("ada_writes")).toMatchObject({ verified: true, media_count: 804 });
    });
    const again = await adminImport(url, path);
    expect(outcomes(again, "tweets")).toMatchObject({ tweets: [0, 0, 4] });
    expect(outcomes(again, "users")).toMatchObject({ users: [0, 0, 1] });
  });

  test("bad lines are listed with their line and reason and skipped; the rest is imported", async () => {
    const url = await newDatabase(adapter);
    const good = { ...(second.data[2] as Json), id: "1999999999999999999" };
    const lines = [
      "{not json",
      { data: [{ id: "1800000000000000001", author_id: ada.id }] },
      { data: [{ id: "12ab", text: "an id that is not digits", author_id: ada.id }] },
      { data: [good], includes: { users: second.includes?.users } },
      { data: [{ id: "1800000000000000002", text: "nobody wrote this", author_id: "42" }] },
    ];
    const run = await adminImport(url, file(`bad-${adapter}.jsonl`, lines));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("refused 4:");
    expect(run.stdout).toMatch(/bad-\w+\.jsonl:1 {2}not JSON/);
    expect(run.stdout).toMatch(/:2 {2}tweet 1800000000000000001 without text/);
    expect(run.stdout).toMatch(/:3 {2}a tweet id "12ab" is not digits/);
    expect(run.stdout).toMatch(
      /:5 {2}tweet 1800000000000000002's author, user 42, is in neither the import nor the world/,
    );
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/\n\s+at /);
    expect(outcomes(run, "tweets")).toMatchObject({ tweets: [1, 0, 0] });
    await withStore(url, async ({ store }) => {
      expect((await store.tweetsByIds([good.id as string])).length).toBe(1);
    });
  });

  test("ids written as JSON numbers are refused quoting the digits as written, not as JSON rounds them", async () => {
    const url = await newDatabase(adapter);
    const lines = [
      `{"data":[{"id":1800000000000000003,"text":"a numeric id","author_id":"${ada.id}"}]}`,
      `{"data":[{"id":"1800000000000000004","text":"a numeric author","author_id":12345}]}`,
    ];
    const run = await adminImport(url, file(`numeric-${adapter}.jsonl`, lines));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      ':1  a tweet id 1800000000000000003 is a JSON number: X writes ids as strings of digits ("1800000000000000003")',
    );
    expect(run.stdout).toContain(
      ':2  tweet 1800000000000000004\'s author_id 12345 is a JSON number: X writes ids as strings of digits ("12345")',
    );
    expect(run.stdout).not.toContain("1800000000000000000");
  });

  test("posts may come before their authors, an edited copy is newer whatever its metrics, and a taken username is refused", async () => {
    const url = await newDatabase(adapter);
    const posts = file(`posts-${adapter}.jsonl`, [{ data: first.data }, { data: second.data }]);
    const authors = file(`authors-${adapter}.jsonl`, [
      ...(second.includes?.users ?? []),
      { ...ada, id: "1700000000000000001", username: "ADA_WRITES" },
    ]);
    const run = await adminImport(url, posts, authors);
    expect(run.code).toBe(0);
    expect(outcomes(run, "tweets")).toMatchObject({ tweets: [6, 0, 0] });
    expect(run.stdout).toContain("user 1700000000000000001's username @ADA_WRITES belongs to user");
    const edited = {
      ...pour,
      text: "Evening espresso instead #coffee",
      edit_history_tweet_ids: [pour.id, "2125141116318646999"],
      public_metrics: { ...pour.public_metrics, like_count: 0 },
    };
    const edit = await adminImport(url, file(`edited-${adapter}.jsonl`, [edited]));
    expect(outcomes(edit, "tweets")).toMatchObject({ tweets: [0, 1, 0] });
    await withStore(url, async (backend) => {
      expect((await backend.store.tweetsByIds([pour.id]))[0]?.text).toBe(edited.text);
      // The index holds the edited text, and no longer the words of the first version.
      expect(await searchIds(backend, "espresso")).toEqual([pour.id]);
      expect(await searchIds(backend, "from:ada_writes morning")).toEqual([]);
    });
  });

  test("--strict imports nothing of a file with a bad line, and names it", async () => {
    const url = await newDatabase(adapter);
    const path = file(`strict-${adapter}.jsonl`, [pages[0], "[1, 2]"]);
    const run = await adminImport(url, "--strict", path);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`${path}: nothing imported (--strict): line 2: not a JSON object`);
    expect(run.stderr).toContain("--strict: nothing imported from");
    await withStore(url, async ({ store }) => {
      expect(await store.tweetsByIds([pour.id])).toEqual([]);
    });
  });

  test("a gzip file imports as its plain lines do, with --format pages", async () => {
    const url = await newDatabase(adapter);
    const path = join(databases.dir, `sample-${adapter}.jsonl.gz`);
    writeFileSync(path, gzipSync(readFileSync(SAMPLE)));
    const run = await adminImport(url, "--format", "pages", path);
    expect(run.code).toBe(0);
    expect(outcomes(run, "tweets")).toMatchObject({ tweets: [7, 0, 0] });
  });
});

describe("import's command line", () => {
  test("a missing file is one line, exit 1, and no database is opened", async () => {
    const url = `file:${join(databases.dir, "never.db")}`;
    const run = await adminImport(url, join(databases.dir, "missing.jsonl"));
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(`error: ${join(databases.dir, "missing.jsonl")} cannot be read (ENOENT)`);
    expect(await Bun.file(join(databases.dir, "never.db")).exists()).toBe(false);
  });

  test("an unknown format or no file is a usage error", async () => {
    const url = `file:${join(databases.dir, "never.db")}`;
    expect((await adminImport(url, "--format", "csv", SAMPLE)).code).toBe(2);
    expect((await adminImport(url)).code).toBe(2);
  });
});
