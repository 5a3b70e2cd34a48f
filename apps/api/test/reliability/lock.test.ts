// Another process holding the database's write lock (the operator CLI, a world rebuild): a short hold
// only delays the charge, a hold past the busy timeout is 503 service_unavailable and uncharged, the
// server keeps answering everything that needs no write meanwhile, and charges normally once released.
// A client that hangs up while its charge waits for the lock pays nothing, on /v1 as over MCP.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { examples } from "@social/fixtures";
import { ledgerPathOf } from "@social/store-sqlite";
import { type Answer, readAnswer } from "./answer.ts";
import { auditLedger, type ObservedCharge } from "./ledger-audit.ts";
import { type LoadAccount, openAccounts } from "./load.ts";
import { type ServerProcess, spawnServer, worldCopy } from "./server-process.ts";

/** openDatabase's busy_timeout: how long a charge waits for the lock before the request fails. */
const BUSY_TIMEOUT_MS = 5_000;

const world = worldCopy();
let server: ServerProcess;
let account: LoadAccount;
let writer: Database;
const charges: ObservedCharge[] = [];

beforeAll(async () => {
  [account] = openAccounts(world.databasePath, [1000]) as [LoadAccount];
  server = await spawnServer(world.databasePath);
  // The ledger's file, which every charge writes (a charge's BEGIN IMMEDIATE takes the world's lock too).
  writer = new Database(ledgerPathOf(world.databasePath));
  // The server writes on its own too (the request log's batches): this process waits its turn, as the
  // operator CLI does, rather than failing when it meets one of those short commits.
  writer.run("PRAGMA busy_timeout = 5000");
});
afterAll(async () => {
  writer.close();
  await server.stop();
  world.remove();
});

async function lookUpTweet(): Promise<Answer> {
  const response = await fetch(`${server.url}/v1/tweets/${examples.tweet_id}`, {
    headers: { authorization: `Bearer ${account.key}` },
    signal: AbortSignal.timeout(BUSY_TIMEOUT_MS * 4),
  });
  const answer = await readAnswer(response);
  charges.push({ requestId: answer.requestId, charged: answer.charged });
  return answer;
}

/** Holds the write lock from another connection (another process's view: the server's is its own). */
async function whileLocked<T>(holdMs: number, during: () => Promise<T>): Promise<T> {
  writer.run("BEGIN IMMEDIATE");
  const release = Bun.sleep(holdMs).then(() => writer.run("ROLLBACK"));
  try {
    return await during();
  } finally {
    await release;
  }
}

describe("a write lock held by another process", () => {
  it("held briefly, only delays the charge", async () => {
    const answer = await whileLocked(300, lookUpTweet);
    expect(answer).toMatchObject({ status: 200, charged: 1, problems: [] });
  }, 30_000);

  it("held past the busy timeout, is 503 service_unavailable and uncharged; then service resumes", async () => {
    let chargeSettled = false;
    const answer = await whileLocked(BUSY_TIMEOUT_MS + 2_000, async () => {
      const charge = lookUpTweet().finally(() => {
        chargeSettled = true;
      });
      await Bun.sleep(200);
      // The charge waits for the lock on a timer, not inside SQLite: the server is not frozen.
      expect((await fetch(`${server.url}/openapi.json`)).status).toBe(200);
      expect(chargeSettled).toBe(false);
      return charge;
    });
    // The 5xx itself is the only thing readAnswer finds wrong: envelope, code and request id are right.
    expect(answer.problems.map((problem) => problem.slice(0, 4))).toEqual(["503 "]);
    expect(answer).toMatchObject({ status: 503, errorCode: "service_unavailable", charged: 0 });
    expect(await lookUpTweet()).toMatchObject({ status: 200, charged: 1, problems: [] });
    expect(auditLedger(world.databasePath, [{ accountId: account.accountId, charges }])).toEqual([]);
  }, 30_000);
});

function usageRows(): number {
  return (writer.query("SELECT COUNT(*) AS n FROM usage WHERE account_id = ?").get(account.accountId) as { n: number })
    .n;
}

async function eventually(condition: () => boolean): Promise<boolean> {
  for (let attempt = 0; attempt < 250 && !condition(); attempt++) await Bun.sleep(20);
  return condition();
}

function balance(): number {
  return (writer.query("SELECT balance FROM accounts WHERE id = ?").get(account.accountId) as { balance: number })
    .balance;
}

const hungUp: Record<string, (signal: AbortSignal) => Promise<Response>> = {
  "/v1": (signal) =>
    fetch(`${server.url}/v1/tweets/${examples.tweet_id}`, {
      headers: { authorization: `Bearer ${account.key}` },
      signal,
    }),
  "/mcp": (signal) =>
    fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${account.key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "get_tweet", arguments: { id: examples.tweet_id } },
      }),
      signal,
    }),
};

describe("a client that hangs up while its charge waits for the lock", () => {
  for (const [surface, send] of Object.entries(hungUp)) {
    it(`${surface}: is not charged once the lock is released (the charge is refunded)`, async () => {
      const before = balance();
      const charged = usageRows();
      await whileLocked(1_500, async () => {
        const client = new AbortController();
        const sent = send(client.signal).catch(() => undefined);
        // Long enough for the read to be done and the charge to be waiting for the lock.
        await Bun.sleep(400);
        client.abort();
        await sent;
      });
      // The charge commits once the lock is free, then finds its client gone and gives the credit back.
      expect(await eventually(() => usageRows() > charged)).toBe(true);
      expect(await eventually(() => balance() === before)).toBe(true);
      expect(auditLedger(world.databasePath, [{ accountId: account.accountId, charges }])).toEqual([]);
      // In the request log it is its refunded usage row, once: no entry of its own besides.
      await Bun.sleep(500);
      expect(writer.query("SELECT count(*) AS n FROM request_log WHERE status = 499").get()).toEqual({ n: 0 });
    }, 30_000);
  }
});
