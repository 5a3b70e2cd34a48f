// GET /v1/monitors/{id}/matches over real HTTP on both adapters: new matches are charged 1 credit each
// once, what was paid is read again free, a removed post is neither served nor charged, a balance that
// cannot pay is a 402, the daily cap holds deliveries, the monitor key's own limit pays for what it
// still covers, and the books balance at the end.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { MonitorView } from "@social/core";
import { ADAPTERS, startTestServer, type TestServer } from "./harness.ts";
import { createMonitor, type MatchesData, recordMatches, send, worldTweetIds } from "./monitors.ts";
import { auditDatabase } from "./reliability/ledger-audit.ts";

describe.each(ADAPTERS)("on %s", (adapter) => {
  let server: TestServer;
  let posts: string[];
  const accounts: string[] = [];
  beforeAll(async () => {
    server = await startTestServer({ adapter });
    posts = await worldTweetIds(server, 40);
  });
  afterAll(async () => {
    // Grants = balance + usage for every account the tests charged, read from the database itself.
    await server.stop();
    const audit = await auditDatabase(
      server.databaseUrl,
      accounts.map((accountId) => ({ accountId, charges: [] })),
      { unansweredAllowed: Number.POSITIVE_INFINITY },
    );
    expect(audit.problems).toEqual([]);
    await server.close();
  });

  const account = async (credits: number) => {
    const made = await server.account(credits);
    accounts.push(made.accountId);
    return made;
  };
  const poll = (monitorId: string, key: string, query = "") =>
    send<MatchesData>(server, "GET", `/v1/monitors/${monitorId}/matches${query}`, key);

  it("charges each new match once, as the /v1 Tweet it is, and reads paid ones again free", async () => {
    const { accountId, key } = await account(100);
    const monitor = await createMonitor(server, key);
    const first = posts.slice(0, 5);
    await recordMatches(server, monitor.id, first);

    const answer = await poll(monitor.id, key);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("cache-control")).toBe("no-store");
    expect(answer.body.meta.credits).toEqual({ charged: 5, remaining: 95 });
    expect(answer.body.data.matches.map((match) => match.seq)).toEqual([1, 2, 3, 4, 5]);
    const tweets = await server.backend.store.tweetsByIds(first);
    expect(answer.body.data.matches.map((match) => match.tweet)).toEqual(JSON.parse(JSON.stringify(tweets)));
    expect(answer.body.data).toMatchObject({ next_since: 5, hold: null });

    const nothingNew = await poll(monitor.id, key);
    expect(nothingNew.body.data).toEqual({ matches: [], next_since: 5, hold: null });
    expect(nothingNew.body.meta.credits).toEqual({ charged: 0, remaining: 95 });
    const again = await poll(monitor.id, key, "?since=2");
    expect(again.body.data.matches.map((match) => match.seq)).toEqual([3, 4, 5]);
    expect(again.body.meta.credits.charged).toBe(0);

    await recordMatches(server, monitor.id, posts.slice(5, 8));
    const mixed = await poll(monitor.id, key, "?since=4");
    expect(mixed.body.data.matches.map((match) => match.seq)).toEqual([5, 6, 7, 8]);
    expect(mixed.body.meta.credits).toEqual({ charged: 3, remaining: 92 });

    expect(await server.balance(accountId)).toBe(92);
    expect(await server.usageTotal(accountId)).toBe(8);
    const shown = (await send<MonitorView>(server, "GET", `/v1/monitors/${monitor.id}`, key)).body.data;
    expect(shown).toMatchObject({ matches: 8, charged_through: 8, spent_today: 8, hold: null });
  });

  it("pages new matches by max_results, charging only those returned", async () => {
    const { accountId, key } = await account(100);
    const monitor = await createMonitor(server, key);
    await recordMatches(server, monitor.id, posts.slice(0, 5));
    const page = await poll(monitor.id, key, "?max_results=2");
    expect(page.body.data.matches.map((match) => match.seq)).toEqual([1, 2]);
    expect(page.body.data.next_since).toBe(2);
    const rest = await poll(monitor.id, key, `?since=${page.body.data.next_since}`);
    expect(rest.body.data.matches.map((match) => match.seq)).toEqual([3, 4, 5]);
    expect(await server.usageTotal(accountId)).toBe(5);
  });

  it("leaves out, and does not charge, a post removed since it matched", async () => {
    const { accountId, key } = await account(100);
    const monitor = await createMonitor(server, key);
    const [kept, removed, last] = posts.slice(20, 23) as [string, string, string];
    await recordMatches(server, monitor.id, [kept, removed, last]);
    await server.backend.worldRemoval().remove("tweets", [removed]);
    const answer = await poll(monitor.id, key);
    expect(answer.body.data.matches.map((match) => [match.seq, match.tweet.id])).toEqual([
      [1, kept],
      [3, last],
    ]);
    expect(answer.body.data.next_since).toBe(3);
    expect(answer.body.meta.credits.charged).toBe(2);
    expect(await server.usageTotal(accountId)).toBe(2);
  });

  it("answers 402 when the balance cannot pay a new match, and serves once credits arrive", async () => {
    const { accountId, key } = await account(2);
    const monitor = await createMonitor(server, key);
    await recordMatches(server, monitor.id, posts.slice(0, 5));
    const partial = await poll(monitor.id, key);
    expect(partial.body.data.matches.map((match) => match.seq)).toEqual([1, 2]);
    expect(partial.body.meta.credits).toEqual({ charged: 2, remaining: 0 });

    const refused = await poll(monitor.id, key);
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatchObject({
      code: "insufficient_credits",
      details: { reason: "balance", required: 1, remaining: 0 },
    });
    const held = (await send<MonitorView>(server, "GET", `/v1/monitors/${monitor.id}`, key)).body.data;
    expect(held.hold?.reason).toBe("insufficient_credits");
    // What was paid for is still read, free, while new matches wait.
    const reread = await poll(monitor.id, key, "?since=0");
    expect(reread.status).toBe(200);
    expect(reread.body.data.matches.map((match) => match.seq)).toEqual([1, 2]);
    expect(reread.body.data.hold?.reason).toBe("insufficient_credits");

    await server.backend.accounts.grantCredits(accountId, 10);
    const resumed = await poll(monitor.id, key);
    expect(resumed.body.data.matches.map((match) => match.seq)).toEqual([3, 4, 5]);
    expect(resumed.body.meta.credits).toEqual({ charged: 3, remaining: 7 });
    expect((await server.backend.monitors.get(accountId, monitor.id))?.hold).toBeUndefined();
    expect(await server.usageTotal(accountId)).toBe(5);
  });

  it("stops at the daily credit cap, saying so, and charges nothing past it", async () => {
    const { accountId, key } = await account(100);
    const monitor = await createMonitor(server, key, { daily_credit_cap: 3 });
    await recordMatches(server, monitor.id, posts.slice(0, 5));
    const capped = await poll(monitor.id, key);
    expect(capped.body.data.matches.map((match) => match.seq)).toEqual([1, 2, 3]);
    const waiting = await poll(monitor.id, key);
    expect(waiting.status).toBe(200);
    expect(waiting.body.data).toMatchObject({ matches: [], next_since: 3, hold: { reason: "daily_cap" } });
    expect(waiting.body.meta.credits.charged).toBe(0);
    const shown = (await send<MonitorView>(server, "GET", `/v1/monitors/${monitor.id}`, key)).body.data;
    expect(shown).toMatchObject({ spent_today: 3, charged_through: 3, matches: 5, hold: { reason: "daily_cap" } });
    expect(await server.usageTotal(accountId)).toBe(3);
  });

  it("serves what the monitor key's own limit still pays for, then says the limit holds the rest", async () => {
    const { accountId } = await account(100);
    const limited = await server.backend.accounts.createKey(accountId, "limited", {
      limit: { credits: 3, per: "total" },
    });
    const monitor = await createMonitor(server, limited.key);
    await recordMatches(server, monitor.id, posts.slice(0, 5));

    const paid = await poll(monitor.id, limited.key);
    expect(paid.status).toBe(200);
    expect(paid.body.data.matches.map((match) => match.seq)).toEqual([1, 2, 3]);
    expect(paid.body.meta.credits).toEqual({ charged: 3, remaining: 97 });

    const refused = await poll(monitor.id, limited.key);
    expect([refused.status, refused.body.error?.code]).toEqual([402, "insufficient_credits"]);
    expect(refused.body.error?.message).toContain("credit limit");
    expect(await server.usageTotal(accountId)).toBe(3);
  });

  it("settles a charge a stopped process left between its debit and its cursor: nothing lost or doubled", async () => {
    const { accountId, key, keyId } = await account(100);
    const monitor = await createMonitor(server, key);
    await recordMatches(server, monitor.id, posts.slice(0, 3));
    // What a process that stopped right after its debit leaves: the intent, and the debit it made.
    const requestId = `${monitor.id}_1_2`;
    const leftAt = Date.now() - 5 * 60_000;
    const intent = {
      requestId,
      afterSeq: 0,
      throughSeq: 2,
      credits: 2,
      day: Math.floor(leftAt / 86_400_000),
      at: leftAt,
    };
    expect(await server.backend.monitors.beginCharge(monitor.id, intent)).toBe(true);
    const debit = { requestId, keyId, endpoint: "monitors.matches", credits: 2, call: "stopped" };
    expect((await server.backend.ledger.debit(accountId, debit)).ok).toBe(true);

    const answer = await poll(monitor.id, key);
    expect(answer.status).toBe(200);
    expect(answer.body.data.matches.map((match) => match.seq)).toEqual([1, 2, 3]);
    expect(answer.body.meta.credits).toEqual({ charged: 1, remaining: 97 });
    expect(await server.usageTotal(accountId)).toBe(3);
  });

  it("refuses a webhook monitor, a cursor past what was paid and bad parameters, free", async () => {
    const { accountId, key } = await account(100);
    const webhook = await createMonitor(server, key, {
      delivery: { type: "webhook", url: "https://hooks.example.com/in" },
    });
    await recordMatches(server, webhook.id, posts.slice(0, 2));
    const conflict = await poll(webhook.id, key);
    expect([conflict.status, conflict.body.error?.code]).toEqual([409, "monitor_delivers_by_webhook"]);

    const monitor = await createMonitor(server, key);
    await recordMatches(server, monitor.id, posts.slice(0, 2));
    for (const [query, parameter] of [
      ["?since=1", "since"],
      ["?since=-1", "since"],
      ["?since=x", "since"],
      ["?max_results=101", "max_results"],
      ["?max_results=0", "max_results"],
      ["?limit=5", "limit"],
    ] as const) {
      const answer = await poll(monitor.id, key, query);
      const details = answer.body.error?.details as { parameter?: string }[];
      expect([query, answer.status, details[0]?.parameter]).toEqual([query, 400, parameter]);
    }
    expect((await poll("mon_0123456789abcdef", key)).status).toBe(404);
    expect(await server.usageTotal(accountId)).toBe(0);
  });
});

describe("matches of a monitor whose key was revoked", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it("are held, uncharged, while another key of the account still reads what was paid", async () => {
    const { accountId, key, keyId } = await server.account(100);
    const second = await server.backend.accounts.createKey(accountId, "second");
    const monitor = await createMonitor(server, key);
    const posts = await worldTweetIds(server, 3);
    await recordMatches(server, monitor.id, posts.slice(0, 1));
    expect((await send<MatchesData>(server, "GET", `/v1/monitors/${monitor.id}/matches`, key)).status).toBe(200);
    await server.revoke(keyId);
    await recordMatches(server, monitor.id, posts.slice(1));
    const held = await send<MatchesData>(server, "GET", `/v1/monitors/${monitor.id}/matches?since=0`, second.key);
    expect(held.status).toBe(200);
    expect(held.body.data.matches.map((match) => match.seq)).toEqual([1]);
    expect(held.body.data.hold?.reason).toBe("key_unusable");
    expect(await server.usageTotal(accountId)).toBe(1);
  });
});
