// Pages in X API v2's own shapes (x-pages/pages.jsonl, written by hand after X's documented objects and
// twarc2's flattened lines: no third-party captures) imported on each adapter, and what /2 serves
// compared with the source field by field: mentions given by username, media with their own keys and
// fields, cashtags, the profile's url, location, entities, pinned post, listed_count and
// verified_type, edit history, withheld, a bare copy filled in by a richer one, and lines that are not
// tweets or users refused as what they are.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runAdmin } from "@social/testing";
import { MEDIA_FIELDS, TWEET_FIELDS, USER_FIELDS } from "../src/v2/fields.ts";
import { ADAPTERS, startTestServer, type TestServer } from "./harness.ts";

type Json = Record<string, unknown>;

const ARCHIVE = join(import.meta.dir, "x-pages", "pages.jsonl");
const lines = readFileSync(ARCHIVE, "utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line) as Json);
const page = lines[0] as { data: Json[]; includes: { users: Json[]; media: Json[] } };
const [edited, withheld] = page.data as [Json, Json];
const [ada, bob] = page.includes.users as [Json, Json];
const { author: cy, __twarc: _twarc, ...flattened } = lines[2] as Json & { author: Json };

/** The source tweet as /2 should serve it: its mentions carry the id of a user the world holds. */
function withMentionIds(tweet: Json, ids: Record<string, string>): Json {
  const entities = tweet.entities as { mentions?: Json[] } | undefined;
  if (entities?.mentions === undefined) return tweet;
  const mentions = entities.mentions.map((mention) => {
    const id = ids[mention.username as string];
    return id === undefined ? mention : { ...mention, id };
  });
  return { ...tweet, entities: { ...entities, mentions } };
}

const ALL = `tweet.fields=${TWEET_FIELDS.join(",")}&user.fields=${USER_FIELDS.join(",")}&media.fields=${MEDIA_FIELDS.join(",")}`;

describe.each(ADAPTERS)("X API v2 pages imported on %s", (adapter) => {
  let server: TestServer;
  let key: string;
  let report: string;

  async function json(path: string): Promise<Json> {
    const response = await server.get(path, key);
    expect(response.status).toBe(200);
    return (await response.json()) as Json;
  }

  beforeAll(async () => {
    server = await startTestServer({ adapter, world: "empty" });
    key = (await server.account(1_000_000)).key;
    const run = await runAdmin(server.databaseUrl, ["import", ARCHIVE]);
    expect(run.code).toBe(0);
    report = run.stdout;
  }, 120_000);

  afterAll(async () => {
    await server?.close();
  });

  test("tweets come back with every field and expansion the source gave", async () => {
    const ids = [edited.id, withheld.id, flattened.id].join(",");
    const body = await json(`/2/tweets?ids=${ids}&${ALL}&expansions=attachments.media_keys,entities.mentions.username`);
    const mentioned = { bob_b: bob.id as string, Ada_Writes: ada.id as string };
    expect(body.data).toEqual([withMentionIds(edited, mentioned), withheld, flattened]);
    // ghost_user is in no page and not in the world: its mention keeps its username and expands to nothing.
    const includes = body.includes as { users: Json[]; media: Json[] };
    expect(includes.media).toEqual(page.includes.media);
    expect(includes.users.map((user) => user.id).sort()).toEqual([ada.id, bob.id].sort());
    expect(includes.users.find((user) => user.id === bob.id)).toEqual(bob);
  });

  test("users come back with their url, location, entities, pinned post, counts, verification and withheld", async () => {
    const ids = [ada.id, bob.id, cy.id].join(",");
    const fields = `user.fields=${USER_FIELDS.join(",")}&tweet.fields=${TWEET_FIELDS.join(",")}`;
    const body = await json(`/2/users?ids=${ids}&${fields}&expansions=pinned_tweet_id`);
    expect(body.data).toEqual([ada, bob, cy]);
    const pinned = (body.includes as { tweets: Json[] }).tweets;
    expect(pinned).toEqual([withMentionIds(edited, { bob_b: bob.id as string })]);
  });

  test("/v1 keeps SPEC.md's objects: mentions by username, media by type and url, no X-only keys", async () => {
    const body = await json(`/v1/tweets?ids=${edited.id}`);
    const tweet = (body.data as Json[])[0] as Json;
    expect((tweet.entities as Json).mentions).toEqual([
      { start: 11, end: 17, username: "bob_b", id: bob.id },
      { start: 22, end: 33, username: "ghost_user" },
    ]);
    expect(tweet.media).toEqual([
      { type: "photo", url: (page.includes.media[0] as Json).url },
      { type: "video", url: (page.includes.media[1] as Json).preview_image_url },
    ]);
    expect(Object.keys(tweet ?? {})).not.toContain("x");
    const user = ((await json(`/v1/users?ids=${ada.id}`)).data as Json[])[0] as Json;
    expect(Object.keys(user).sort()).toEqual(
      [
        "created_at",
        "description",
        "follower_count",
        "following_count",
        "id",
        "name",
        "profile_image_url",
        "protected",
        "tweet_count",
        "username",
        "verified",
      ].sort(),
    );
  });

  test("lines that are not tweets or users are refused as what they are, with the file and line", () => {
    expect(report).toContain("refused 5:");
    expect(report).toMatch(/pages\.jsonl:4 {2}a count bucket \(\{start, end, tweet_count\}\), not a tweet/);
    expect(report).toMatch(/pages\.jsonl:5 {2}a list, not a tweet/);
    expect(report).toMatch(/pages\.jsonl:6 {2}a Space, not a tweet/);
    expect(report).toMatch(/pages\.jsonl:7 {2}a compliance record \(delete, deleted\), not a tweet/);
    expect(report).toMatch(
      /pages\.jsonl:8 {2}tweet 1600000000000000008 without author_id: its author is not in its page/,
    );
  });

  test("importing the same file again changes nothing", async () => {
    const again = await runAdmin(server.databaseUrl, ["import", ARCHIVE]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/users\s+0\s+0\s+3/);
    expect(again.stdout).toMatch(/tweets\s+0\s+0\s+3/);
  });
});
