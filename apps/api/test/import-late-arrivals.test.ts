// Users that arrive after the posts that name them, imported through the operator CLI on each adapter:
// a reply imported before the user it replies to, and a mention X gave by username alone of a user no
// page of its run held. Once the user is imported, in a later run, the reply is found by `to:` and the
// mention carries the user's id, in /2, its expansion and the user's mentions timeline; SQLite's search
// index agrees with its content, also after the reply is removed; importing the same files again
// changes nothing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runAdmin } from "@social/testing";
import { ADAPTERS, startTestServer, type TestServer } from "./harness.ts";

type Json = Record<string, unknown>;

const ADA = { id: "1500000000000000001", name: "Ada", username: "ada_writes" };
const DAN = { id: "1500000000000000009", name: "Dan", username: "Dan_Late" };
const REPLY = {
  id: "1600000000000000021",
  text: "@dan_late welcome, late as ever",
  author_id: ADA.id,
  conversation_id: "1600000000000000020",
  in_reply_to_user_id: DAN.id,
  created_at: "2023-05-02T10:00:00.000Z",
  lang: "en",
  referenced_tweets: [{ type: "replied_to", id: "1600000000000000020" }],
  entities: { mentions: [{ start: 0, end: 9, username: "dan_late" }] },
  edit_history_tweet_ids: ["1600000000000000021"],
};
const MENTION = {
  id: "1600000000000000022",
  text: "Waiting for @DAN_LATE again",
  author_id: ADA.id,
  conversation_id: "1600000000000000022",
  created_at: "2023-05-02T11:00:00.000Z",
  lang: "en",
  entities: { mentions: [{ start: 12, end: 21, username: "DAN_LATE" }] },
  edit_history_tweet_ids: ["1600000000000000022"],
};

describe.each(ADAPTERS)("users imported after the posts that name them, on %s", (adapter) => {
  let server: TestServer;
  let key: string;
  let posts: string;
  let users: string;

  async function json(path: string): Promise<Json> {
    const response = await server.get(path, key);
    expect([path, response.status]).toEqual([path, 200]);
    return (await response.json()) as Json;
  }

  async function admin(...args: string[]): Promise<string> {
    const run = await runAdmin(server.databaseUrl, args);
    expect([args, run.code]).toEqual([args, 0]);
    return run.stdout;
  }

  const toDan = async () =>
    ((await json("/2/tweets/search/recent?query=to:dan_late")).data as Json[] | undefined)?.map((t) => t.id);

  /** SQLite's FTS5 check that its index holds exactly what its content view yields; it throws when not. */
  function checkSearchIndex(): void {
    if (adapter === "sqlite")
      server.sqlite().run("INSERT INTO tweets_fts (tweets_fts, rank) VALUES ('integrity-check', 1)");
  }

  beforeAll(async () => {
    server = await startTestServer({ adapter, world: "empty" });
    key = (await server.account(1_000_000)).key;
    posts = join(server.dir, "posts.jsonl");
    users = join(server.dir, "users.jsonl");
    const page = { data: [REPLY, MENTION], includes: { users: [ADA] } };
    writeFileSync(posts, `${JSON.stringify(page)}\n`);
    writeFileSync(users, `${JSON.stringify({ data: [DAN] })}\n`);
    await admin("import", posts);
    expect(await toDan()).toBeUndefined();
    await admin("import", users);
  }, 120_000);

  afterAll(async () => {
    await server?.close();
  });

  test("the reply is found by to: its user, and the search index agrees with its content", async () => {
    expect(await toDan()).toEqual([REPLY.id]);
    checkSearchIndex();
  });

  test("the mentions gain the user's id, its expansion and the user's mentions timeline", async () => {
    const body = await json(`/2/tweets?ids=${REPLY.id},${MENTION.id}&expansions=entities.mentions.username`);
    const mentions = (body.data as { entities: { mentions: Json[] } }[]).map((tweet) => tweet.entities.mentions);
    expect(mentions).toEqual([
      [{ start: 0, end: 9, username: "dan_late", id: DAN.id }],
      [{ start: 12, end: 21, username: "DAN_LATE", id: DAN.id }],
    ]);
    expect((body.includes as { users: Json[] }).users).toEqual([DAN]);
    const timeline = await json(`/2/users/${DAN.id}/mentions`);
    expect((timeline.data as Json[]).map((tweet) => tweet.id)).toEqual([MENTION.id, REPLY.id]);
  });

  test("importing the same files again changes nothing", async () => {
    const again = await admin("import", posts, users);
    expect(again).toMatch(/users\s+0\s+0\s+2/);
    expect(again).toMatch(/tweets\s+0\s+0\s+2/);
    expect(await toDan()).toEqual([REPLY.id]);
    checkSearchIndex();
  });

  test("removing the reply afterwards leaves the search index intact", async () => {
    await admin("remove", "tweets", REPLY.id);
    expect(await toDan()).toBeUndefined();
    checkSearchIndex();
    const timeline = await json(`/2/users/${DAN.id}/mentions`);
    expect((timeline.data as Json[]).map((tweet) => tweet.id)).toEqual([MENTION.id]);
  });
});
