// The hardening issue's edge ids (#33), over real HTTP and MCP on each adapter. One tweet with id 2^63-1
// used to break relevancy search for the whole world (PostgreSQL: 500 bigint out of range; SQLite: an
// empty page, charged), and a tweet whose id told a time in 2080 moved the world's clock there. Now the
// importer takes ids up to MAX_ID (2^63-2) and refuses one past it or from the future, naming file and
// line; a world holding the largest id is searched, counted, paged and looked up like any other, ids past
// it are answered as missing or as bounds, and a row past it (a world imported before ids were bounded)
// makes nothing fail and can be removed. Every answer keeps the contract (answer.ts): no 5xx, nothing
// charged but a 200, and the books add up.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ID_CEILING, MAX_ID } from "@social/core";
import { runAdmin } from "@social/testing";
import { SQL } from "bun";
import { ADAPTERS, startTestServer, type TestServer } from "../harness.ts";
import { type Answer, readAnswer } from "./answer.ts";

const LARGEST = String(MAX_ID);
/** The largest int64: one past the largest id accepted. */
const PAST = String(ID_CEILING);
const HUGE = "9999999999999999999";
const NORMAL = "1860000000000000000";
const HOUR_MS = 3_600_000;
const hoursAgo = (hours: number) => new Date(Date.now() - hours * HOUR_MS).toISOString();
const search = "/v1/search/recent?query=coffee";
/** The two posts the import takes, in id order; newest first they are the other way round. */
const both = [NORMAL, LARGEST];
const newestFirst = [LARGEST, NORMAL];

describe.each(ADAPTERS)("ids at the edge on %s", (adapter) => {
  let server: TestServer;
  let key: string;
  let accountId: string;
  const answers: Answer[] = [];

  /** The server's DATABASE_URL as the operator CLI takes it. */
  const databaseUrl = () => (adapter === "sqlite" ? `file:${server.databaseUrl}` : server.databaseUrl);

  async function get(path: string): Promise<{ answer: Answer; body: Record<string, unknown> }> {
    const response = await server.get(path, key);
    const answer = await readAnswer(response.clone());
    answers.push(answer);
    return { answer, body: (await response.json()) as Record<string, unknown> };
  }

  async function ids(path: string, charged?: number): Promise<string[]> {
    const { answer, body } = await get(path);
    expect({ path, status: answer.status, problems: answer.problems }).toEqual({ path, status: 200, problems: [] });
    const data = body.data as { id: string }[];
    expect({ path, charged: answer.charged }).toEqual({ path, charged: charged ?? 1 + data.length });
    return data.map((item) => item.id);
  }

  async function total(path: string): Promise<number> {
    const { answer, body } = await get(path);
    expect({ path, status: answer.status, charged: answer.charged }).toEqual({ path, status: 200, charged: 1 });
    return (body.data as { total_tweet_count: number }).total_tweet_count;
  }

  async function missing(path: string): Promise<void> {
    const { answer } = await get(path);
    expect({ path, status: answer.status, charged: answer.charged, problems: answer.problems }).toEqual({
      path,
      status: 404,
      charged: 0,
      problems: [],
    });
  }

  beforeAll(async () => {
    server = await startTestServer({ adapter, world: "empty" });
    ({ key, accountId } = await server.account(10_000));
  });
  afterAll(() => server.close());

  it("the importer takes the largest id and refuses one past it, or from the future, naming file and line", async () => {
    const file = join(server.dir, "edge.jsonl");
    const lines = [
      { id: LARGEST, username: "edge_author", created_at: "2020-01-01T00:00:00.000Z" },
      { id: LARGEST, text: "edge coffee at the largest id", author_id: LARGEST, created_at: hoursAgo(2) },
      { id: NORMAL, text: "plain coffee", author_id: LARGEST, created_at: hoursAgo(1) },
      { id: PAST, text: "coffee past the largest id", author_id: LARGEST, created_at: hoursAgo(3) },
      { id: "1860000000000000001", text: "coffee from 2080", author_id: LARGEST, created_at: "2080-07-10T17:30:30Z" },
      // X's snowflake ids hold their time: this one's is in 2078.
      { id: "9000000000000000000", text: "coffee without created_at", author_id: LARGEST },
    ];
    writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    const run = await runAdmin(databaseUrl(), ["import", file]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("refused 3:");
    expect(run.stdout).toContain(`${file}:4  a tweet id "${PAST}" is above the largest id accepted (${LARGEST})`);
    expect(run.stdout).toContain(
      `${file}:5  tweet 1860000000000000001 was created in the future: 2080-07-10T17:30:30.000Z (its created_at)`,
    );
    expect(run.stdout).toMatch(
      new RegExp(`${file}:6  tweet 9000000000000000000 was created in the future: 2078-.* \\(the time its id tells`),
    );
    // The clock is the newest post taken, not 2080.
    expect(run.stdout).toContain(`world: 1 users, 2 tweets, clock ${lines[2]?.created_at}`);
  });

  it("relevancy and recency search, counts and pages over a world holding the largest id", async () => {
    for (const order of ["relevancy", "recency"]) {
      expect((await ids(`${search}&sort_order=${order}`)).sort()).toEqual(both);
    }
    expect(await ids(`${search}&sort_order=recency`)).toEqual(newestFirst);
    // Pages of one: the cursor of each holds its id, the largest included.
    const { answer, body } = await get(`${search}&sort_order=relevancy&limit=1`);
    const next = await ids(`${search}&sort_order=relevancy&limit=1&next_token=${answer.nextToken}`);
    expect([...(body.data as { id: string }[]).map(({ id }) => id), ...next].sort()).toEqual(both);
    expect((await ids("/2/tweets/search/recent?query=coffee&sort_order=relevancy")).sort()).toEqual(both);

    // The window ends just after the clock, the newest post, which it counts; so does an end_time after it.
    expect(await total("/v1/search/counts?query=coffee")).toBe(2);
    const end = encodeURIComponent(new Date(Date.now() + HOUR_MS).toISOString());
    expect(await total(`/v1/search/counts?query=coffee&granularity=day&end_time=${end}`)).toBe(2);
    expect(await total(`/v1/search/counts?query=coffee&granularity=minute&end_time=${end}`)).toBe(2);
  });

  it("ids past the largest: lookups are missing, since_id and until_id are bounds", async () => {
    for (const path of [`/v1/tweets/${LARGEST}`, `/v1/users/${LARGEST}`]) {
      const { answer } = await get(path);
      expect({ path, status: answer.status, charged: answer.charged }).toEqual({ path, status: 200, charged: 1 });
    }
    for (const id of [PAST, HUGE]) {
      await missing(`/v1/tweets/${id}`);
      // X API v2 answers a missing post 200 with its errors, uncharged.
      const v2 = await get(`/2/tweets/${id}`);
      expect({ status: v2.answer.status, charged: v2.answer.charged, data: v2.body.data }).toEqual({
        status: 200,
        charged: 0,
        data: undefined,
      });
      expect(v2.body.errors).toMatchObject([{ title: "Not Found Error", value: id }]);
      await missing(`/v1/users/${id}`);
      await missing(`/v1/users/${id}/tweets`);
    }
    expect(await ids(`/v1/tweets?ids=${LARGEST},${PAST},${HUGE}`)).toEqual([LARGEST]);

    const timeline = `/v1/users/${LARGEST}/tweets`;
    expect(await ids(timeline)).toEqual(newestFirst);
    for (const bound of [LARGEST, PAST, HUGE]) {
      const below = bound === LARGEST ? [NORMAL] : both;
      expect(await ids(`${timeline}?since_id=${bound}`)).toEqual([]);
      expect((await ids(`${timeline}?until_id=${bound}`)).sort()).toEqual(below);
      for (const order of ["relevancy", "recency"]) {
        expect(await ids(`${search}&sort_order=${order}&since_id=${bound}`)).toEqual([]);
        const operator = encodeURIComponent(`coffee since_id:${bound}`);
        expect(await ids(`/v1/search/recent?query=${operator}&sort_order=${order}`)).toEqual([]);
        expect((await ids(`${search}&sort_order=${order}&until_id=${bound}`)).sort()).toEqual(below);
      }
      expect(await total(`/v1/search/counts?query=coffee&since_id=${bound}`)).toBe(0);
    }
  });

  it("MCP's tools read the same", async () => {
    const client = new Client({ name: "edge-ids", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    try {
      const before = await server.balance(accountId);
      const found = await client.callTool({
        name: "search_recent_tweets",
        arguments: { query: "coffee", sort_order: "relevancy" },
      });
      expect((found.structuredContent as { data: { id: string }[] }).data.map(({ id }) => id).sort()).toEqual(both);
      const tweet = await client.callTool({ name: "get_tweet", arguments: { id: LARGEST } });
      expect((tweet.structuredContent as { data: { id: string } }).data.id).toBe(LARGEST);
      for (const id of [PAST, HUGE]) {
        const gone = await client.callTool({ name: "get_tweet", arguments: { id } });
        expect(gone.isError).toBe(true);
      }
      expect(await server.balance(accountId)).toBe(before - 3 - 1);
    } finally {
      await client.close();
    }
  });

  it("a row past the largest id, from a world imported before ids were bounded, fails nothing and can be removed", async () => {
    await holdLegacyRow(server, NORMAL, PAST);
    for (const order of ["relevancy", "recency"]) {
      expect(await ids(`${search}&sort_order=${order}`)).toEqual([LARGEST]);
    }
    const end = encodeURIComponent(new Date(Date.now() + HOUR_MS).toISOString());
    expect(await total(`/v1/search/counts?query=coffee&granularity=day&end_time=${end}`)).toBe(1);
    await missing(`/v1/tweets/${PAST}`);
    const run = await runAdmin(databaseUrl(), ["remove", "tweets", PAST]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    expect(run.stdout).toContain(`removed 1 tweets: ${PAST}\n`);
    expect(run.stdout).toContain("world: 1 users, 1 tweets");
    expect(await ids(`${search}&sort_order=relevancy`)).toEqual([LARGEST]);
  });

  it("kept the contract: no 5xx, nothing charged but a 200, and the ledger holds what the answers said", async () => {
    expect(answers.flatMap((answer) => answer.problems)).toEqual([]);
    const charged = answers.reduce((sum, answer) => sum + answer.charged, 0);
    // The MCP calls: 3 credits for two results, and 1 for the tweet.
    expect(await server.balance(accountId)).toBe(10_000 - charged - 4);
    expect(await server.usageTotal(accountId)).toBe(charged + 4);
  });
});

/** Gives the tweet `id` the id `to` past MAX_ID, as an import before ids were bounded could have stored it. */
async function holdLegacyRow(server: TestServer, id: string, to: string): Promise<void> {
  if (server.adapter === "postgres") {
    const sql = new SQL(server.databaseUrl);
    try {
      await sql.unsafe(`UPDATE tweets SET id = ${to} WHERE id = ${id}`);
    } finally {
      await sql.close();
    }
    return;
  }
  // The full-text index is told of the change as a write tells it: forgotten, then indexed again.
  const db = server.sqlite();
  db.transaction(() => {
    db.run(`INSERT INTO tweets_fts (tweets_fts, rowid, text, author, lang, flags)
            SELECT 'delete', id, text, author, lang, flags FROM tweet_search_content WHERE id = ${id}`);
    db.run(`UPDATE tweets SET id = ${to} WHERE id = ${id}`);
    db.run(`INSERT INTO tweets_fts (rowid, text, author, lang, flags)
            SELECT id, text, author, lang, flags FROM tweet_search_content WHERE id = ${to}`);
  })();
}
