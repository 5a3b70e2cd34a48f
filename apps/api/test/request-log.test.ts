// The request log over the real server on both adapters: every request made with a key, on every
// surface (/v1, /2, the free account reads, MCP), is in the account's log with the status its client
// got and what it was charged; REQUEST_LOG_DAYS=0 keeps none, and entries past the retention are purged
// when a server starts.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { DEFAULT_RATE_LIMIT, type LoggedRequest } from "@social/core";
import { examples } from "@social/fixtures";
import { openDatabase } from "@social/store-sqlite";
import { startServer } from "../src/server.ts";
import { ADAPTERS, freePort, startTestServer, type TestServer, worldTemplate } from "./harness.ts";

const DAY_MS = 86_400_000;

/** The account's log once the batch holding `count` entries is written (a quarter of a second later). */
async function logOf(server: TestServer, accountId: string, count: number): Promise<LoggedRequest[]> {
  const query = { since: Date.now() - DAY_MS, status: "all" as const, limit: 100 };
  let entries: LoggedRequest[] = [];
  for (let waited = 0; waited < 3000; waited += 50) {
    entries = (await server.backend.accounts.requestLog(accountId, query)).entries;
    if (entries.length >= count) break;
    await Bun.sleep(50);
  }
  return entries;
}

describe.each(ADAPTERS)("on %s", (adapter) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ adapter });
  });
  afterAll(() => server.close());

  it("has every answer of /v1, /2, the account reads and MCP, with the status its client got", async () => {
    const { accountId, key } = await server.account(3);
    const sent: { path: string; requestId: string; status: number; credits: number }[] = [];
    const get = async (path: string, headers: Record<string, string> = {}) => {
      const response = await server.get(path, key, { headers });
      const charged = Number(response.headers.get("x-credits-charged") ?? "");
      const body = (await response.json()) as { meta?: { credits?: { charged: number } } };
      sent.push({
        path,
        requestId: response.headers.get("x-request-id") ?? "",
        status: response.status,
        credits: body.meta?.credits?.charged ?? (Number.isNaN(charged) ? 0 : charged),
      });
    };
    await get(`/v1/tweets/${examples.tweet_id}`); // 200, 1 credit
    await get("/v1/tweets/999999999999"); // 404
    await get(`/v1/tweets/${examples.tweet_id}?dry_run=true`); // 200, a free quote
    await get("/v1/users/abc"); // 400
    await get("/2/users/999999999999"); // 200 with errors, uncharged
    await get(`/2/tweets/${examples.tweet_id}?tweet.fields=created_at`); // 200, 1 credit
    await get("/v1/account"); // 200, free
    await get(`/v1/search/recent?query=${encodeURIComponent(examples.search_query)}`); // 402: 1 credit left
    expect(sent.map((answer) => answer.status)).toEqual([200, 404, 200, 400, 200, 200, 200, 402]);

    const mcp = new Client({ name: "request-log-test", version: "1.0.0" });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    try {
      await mcp.callTool({ name: "get_user", arguments: { id: "999999999999" } });
      await mcp.callTool({ name: "get_tweet", arguments: { id: examples.tweet_id } });
    } finally {
      await mcp.close();
    }

    const entries = await logOf(server, accountId, sent.length + 2);
    // One entry per request, no more: nine requests, nine entries, each id once.
    expect(entries).toHaveLength(sent.length + 2);
    expect(new Set(entries.map((entry) => entry.requestId)).size).toBe(entries.length);
    const byId = new Map(entries.map((entry) => [entry.requestId, entry]));
    for (const answer of sent) {
      // Each with the path its client called, charged or not: a /2 call as /2, not as its /v1 endpoint.
      expect(byId.get(answer.requestId)).toMatchObject({
        status: answer.status,
        credits: answer.credits,
        call: answer.path,
      });
    }
    expect(byId.get(sent[1]?.requestId ?? "")).toMatchObject({
      errorCode: "endpoint_not_found",
      message: expect.any(String),
    });
    expect(byId.get(sent[7]?.requestId ?? "")).toMatchObject({
      errorCode: "insufficient_credits",
      message: expect.stringMatching(/^Insufficient credits: this request costs/),
    });
    expect(byId.get(sent[6]?.requestId ?? "")?.endpoint).toBe("account");
    expect(byId.get(sent[5]?.requestId ?? "")).toMatchObject({ endpoint: "tweet", errorCode: null, message: null });
    // The MCP calls: a refusal and a charge (the balance had 1 credit, a lookup costs 1).
    const mcpEntries = entries.filter((entry) => !sent.some((answer) => answer.requestId === entry.requestId));
    expect(
      mcpEntries
        .map(({ endpoint, status, credits }) => ({ endpoint, status, credits }))
        .sort((a, b) => a.status - b.status),
    ).toEqual([
      { endpoint: "tweet", status: 200, credits: 1 },
      { endpoint: "user", status: 404, credits: 0 },
    ]);
    expect(mcpEntries.map((entry) => entry.call)).toEqual([null, null]);
    expect(entries.every((entry) => entry.durationMs !== null && entry.durationMs >= 0)).toBe(true);
    // Newest first.
    expect(entries.map((entry) => entry.createdAt)).toEqual(
      [...entries.map((entry) => entry.createdAt)].sort((a, b) => b - a),
    );
  });
});

describe.each(ADAPTERS)("an API key sent where none belongs, on %s", (adapter) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ adapter });
  });
  afterAll(() => server.close());

  it("is kept by the log in no encoding: not in the call, its parameters or the refusal's message", async () => {
    const { accountId, key } = await server.account(100);
    const secret = key.slice("sk_live_".length);
    const encodings = [
      key,
      `sk%5Flive%5F${secret}`,
      `sk%5flive%5f${secret}`,
      `%73%6B%5F%6C%69%76%65%5F${secret}`,
      `sk%255Flive%255F${secret}`,
    ];
    const paths = encodings.flatMap((sent) => [
      `/v1/users/by-username/${sent}`,
      `/v1/users/by-username/ada?${sent}=1`,
      `/v1/search/recent?query=${sent}&max_credits=0`,
      `/2/tweets/search/recent?query=from%3A${sent}`,
    ]);
    const ids: string[] = [];
    for (const path of paths) {
      const response = await server.get(path, key);
      ids.push(response.headers.get("x-request-id") ?? "");
      await response.arrayBuffer();
    }
    const entries = (await logOf(server, accountId, paths.length)).filter((entry) => ids.includes(entry.requestId));
    expect(entries).toHaveLength(paths.length);
    for (const entry of entries) {
      // However many times the stored text is decoded, the key's secret part is not in it.
      for (const text of [entry.call ?? "", entry.message ?? ""]) {
        let decoded = text;
        for (let round = 0; round < 4; round++) decoded = decodeURIComponent(decoded.replaceAll("+", " "));
        expect(decoded).not.toContain(secret);
      }
    }
    // What is left is still there to read: the path called, the parameters' names, the refusal's reason.
    expect(entries.map((entry) => entry.call)).toContainEqual("/v1/users/by-username/[removed]");
    expect(entries.map((entry) => entry.call)).toContainEqual("/v1/search/recent?query=%5Bremoved%5D&max_credits=0");
    expect(entries.map((entry) => entry.message)).toContainEqual(
      "Invalid request: [removed] is not a parameter of this endpoint",
    );
  });
});

describe("replays and rate limits", () => {
  it("an idempotent replay is an entry of its own, free; a flood of 429s is listed a few a second", async () => {
    const limited = await startTestServer({ rateLimit: { ratePerSecond: 1, burst: 2 } });
    try {
      const { accountId, key } = await limited.account();
      const retry = { headers: { "idempotency-key": "report-1" } };
      const first = await limited.get(`/v1/tweets/${examples.tweet_id}`, key, retry);
      const replay = await limited.get(`/v1/tweets/${examples.tweet_id}`, key, retry);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      const flood = await Promise.all(Array.from({ length: 40 }, () => limited.get("/v1/account", key)));
      const refused = flood.filter((response) => response.status === 429).length;
      expect(refused).toBeGreaterThan(30);
      await Bun.sleep(400);
      await limited.backend.requestLog.flush();
      const entries = (await limited.backend.accounts.requestLog(accountId, { since: 0, status: "all", limit: 100 }))
        .entries;
      // The replay carries the first answer's request id, which finds the charge; it is logged as a
      // free answer of its own beside it.
      const firstId = first.headers.get("x-request-id");
      expect(replay.headers.get("x-request-id")).toBe(firstId as string);
      expect(entries.find((entry) => entry.requestId === firstId)).toMatchObject({ status: 200, credits: 1 });
      const lookups = entries.filter((entry) => entry.endpoint === "tweet");
      expect(lookups.map(({ status, credits }) => ({ status, credits }))).toEqual([
        { status: 200, credits: 0 },
        { status: 200, credits: 1 },
      ]);
      const listed429 = entries.filter((entry) => entry.status === 429).length;
      expect(listed429).toBeGreaterThan(0);
      // The flood took at most a few seconds: at most 5 listed for each.
      expect(listed429).toBeLessThanOrEqual(5 * 3);
      expect(listed429).toBeLessThan(refused);
    } finally {
      await limited.close();
    }
  });
});

describe("retention", () => {
  it("REQUEST_LOG_DAYS=0 keeps no log of uncharged answers", async () => {
    const off = await startTestServer({ requestLogDays: 0 });
    try {
      const { key } = await off.account();
      expect((await off.get("/v1/tweets/999999999999", key)).status).toBe(404);
      await Bun.sleep(400);
      expect(off.sqlite().query("SELECT count(*) AS n FROM request_log").get()).toEqual({ n: 0 });
    } finally {
      await off.close();
    }
  });

  it("a server purges what is older than REQUEST_LOG_DAYS when it starts, and keeps the rest", async () => {
    const dir = mkdtempSync(join(tmpdir(), "social-retention-"));
    const databaseUrl = join(dir, "social.db");
    copyFileSync(worldTemplate(), databaseUrl);
    const db = openDatabase(databaseUrl);
    const insert = db.query(
      "INSERT INTO request_log (request_id, account_id, key_id, endpoint, status, error_code, duration_ms, created_at) VALUES (?, 'acct_x', 'key_x', 'tweet', 404, NULL, 1, ?)",
    );
    insert.run("req_0ld", Date.now() - 3 * DAY_MS);
    insert.run("req_new", Date.now() - DAY_MS / 2);
    db.close();
    const port = await freePort();
    const server = await startServer(
      {
        host: "127.0.0.1",
        port,
        databaseUrl,
        rateLimit: DEFAULT_RATE_LIMIT,
        publicUrl: `http://127.0.0.1:${port}`,
        requestLogDays: 2,
      },
      { log: () => {} },
    );
    try {
      const kept = () =>
        openDatabase(databaseUrl).query<{ request_id: string }, []>("SELECT request_id FROM request_log").all();
      for (let waited = 0; waited < 2000 && kept().length > 1; waited += 50) await Bun.sleep(50);
      expect(kept()).toEqual([{ request_id: "req_new" }]);
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
