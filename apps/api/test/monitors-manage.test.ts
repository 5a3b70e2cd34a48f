// /v1/monitors over real HTTP on both adapters: an account creates, lists, shows, changes and deletes its
// monitors with its API key, free and never another account's; every bad field is a 400 that names it,
// and the 101st monitor is refused naming the limit.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { MONITOR_LIMITS, type MonitorView, newMonitorId, newMonitorSecret } from "@social/core";
import { ADAPTERS, startTestServer, type TestServer } from "./harness.ts";
import { createMonitor, send } from "./monitors.ts";

const PUBLIC_HOOK = "https://hooks.example.com/social";

describe.each(ADAPTERS)("on %s", (adapter) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ adapter });
  });
  afterAll(() => server.close());

  it("creates, lists, shows, changes and deletes a monitor, charging nothing", async () => {
    const { accountId, key, keyId } = await server.account(50);
    const created = await send<MonitorView>(server, "POST", "/v1/monitors", key, {
      query: "coffee lang:en",
      name: "Coffee talk",
      daily_credit_cap: 20,
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("cache-control")).toBe("no-store");
    expect(created.headers.get("x-rate-limit-limit")).toBeString();
    const monitor = created.body.data;
    expect(monitor).toEqual({
      id: expect.stringMatching(/^mon_[0-9a-f]{16}$/),
      name: "Coffee talk",
      query: "coffee lang:en",
      delivery: { type: "pull" },
      daily_credit_cap: 20,
      status: "active",
      paused_reason: null,
      hold: null,
      webhook_failure: null,
      matches: 0,
      charged_through: 0,
      spent_today: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(created.body.meta.credits).toEqual({ charged: 0, remaining: 50 });
    expect((await server.backend.monitors.get(accountId, monitor.id))?.keyId).toBe(keyId);

    const webhook = await createMonitor(server, key, { query: "#ai", delivery: { type: "webhook", url: PUBLIC_HOOK } });
    expect(webhook.delivery).toEqual({ type: "webhook", url: PUBLIC_HOOK });
    expect(webhook.secret).toMatch(/^whsec_/);

    const listed = await send<MonitorView[]>(server, "GET", "/v1/monitors", key);
    expect(listed.body.data.map((each) => each.id)).toEqual([monitor.id, webhook.id]);
    expect((await send<MonitorView>(server, "GET", `/v1/monitors/${webhook.id}`, key)).body.data).toEqual(webhook);

    const changed = await send<MonitorView>(server, "PATCH", `/v1/monitors/${monitor.id}`, key, {
      name: null,
      daily_credit_cap: null,
      status: "paused",
      query: "tea -is:retweet",
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({
      id: monitor.id,
      name: null,
      daily_credit_cap: null,
      status: "paused",
      query: "tea -is:retweet",
    });
    expect(
      (await send<MonitorView>(server, "PATCH", `/v1/monitors/${monitor.id}`, key, { status: "active" })).body.data
        .status,
    ).toBe("active");

    const deleted = await send(server, "DELETE", `/v1/monitors/${monitor.id}`, key);
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toEqual({ id: monitor.id, deleted: true });
    expect((await send(server, "GET", `/v1/monitors/${monitor.id}`, key)).status).toBe(404);
    expect((await send(server, "DELETE", `/v1/monitors/${monitor.id}`, key)).status).toBe(404);

    expect(await server.balance(accountId)).toBe(50);
    expect(await server.usageTotal(accountId)).toBe(0);
    expect((await server.backend.accounts.dailyUsage(accountId, 1)).map((day) => day.requests)).toEqual([0]);
  });

  it("refuses each bad field with a 400 naming it, and creates nothing", async () => {
    const { accountId, key } = await server.account();
    const refusals: [body: unknown, parameter: string | undefined, message: RegExp][] = [
      [{}, "query", /is required/],
      [{ query: "" }, "query", /must not be empty/],
      [{ query: "x".repeat(513) }, "query", /at most 512/],
      [{ query: 7 }, "query", /must be a string/],
      [{ query: "coffee since:2026-01-01" }, "query", /time bounds do not apply/],
      [{ query: "-is:retweet" }, "query", /word, phrase, hashtag/],
      [{ query: "coffee (" }, "query", /./],
      [{ query: "coffee", colour: "red" }, "colour", /is not a field of a monitor/],
      [{ query: "coffee", name: "" }, "name", /must not be empty/],
      [{ query: "coffee", name: "n".repeat(101) }, "name", /at most 100/],
      [{ query: "coffee", delivery: { type: "email" } }, "delivery.type", /"type":"webhook"/],
      [{ query: "coffee", delivery: "pull" }, "delivery", /"type":"pull"/],
      [{ query: "coffee", delivery: { type: "webhook" } }, "delivery.url", /is required/],
      [{ query: "coffee", delivery: { type: "pull", url: PUBLIC_HOOK } }, "delivery.url", /is not a field/],
      [{ query: "coffee", delivery: { type: "webhook", url: "hooks" } }, "delivery.url", /not a valid absolute URL/],
      [{ query: "coffee", delivery: { type: "webhook", url: "ftp://hooks.example.com/" } }, "delivery.url", /http/],
      [{ query: "coffee", delivery: { type: "webhook", url: "http://127.0.0.1:9/" } }, "delivery.url", /public/],
      [{ query: "coffee", delivery: { type: "webhook", url: "http://10.0.0.7/" } }, "delivery.url", /public/],
      [{ query: "coffee", daily_credit_cap: 0 }, "daily_credit_cap", /integer from 1/],
      [{ query: "coffee", daily_credit_cap: 2.5 }, "daily_credit_cap", /integer from 1/],
      [{ query: "coffee", daily_credit_cap: "5" }, "daily_credit_cap", /integer from 1/],
      [{ query: "coffee", status: "paused" }, "status", /is not a field/],
      [[{ query: "coffee" }], undefined, /must be JSON: an object/],
      [null, undefined, /must be JSON: an object/],
      ["coffee", undefined, /must be JSON/],
      ["", undefined, /must be JSON/],
    ];
    for (const [body, parameter, message] of refusals) {
      const answer = await send(server, "POST", "/v1/monitors", key, body);
      const details = answer.body.error?.details as { parameter?: string; message: string }[];
      expect([body, answer.status, answer.body.error?.code]).toEqual([body, 400, "invalid_request"]);
      expect([body, details[0]?.parameter]).toEqual([body, parameter]);
      expect(details[0]?.message).toMatch(message);
    }
    const monitor = await createMonitor(server, key);
    const patches: [body: unknown, parameter: string | undefined, message: RegExp][] = [
      [{}, undefined, /at least one field/],
      [{ status: "stopped" }, "status", /active or paused/],
      [{ query: "coffee until:2026-01-01" }, "query", /time bounds/],
      [{ daily_credit_cap: -1 }, "daily_credit_cap", /integer from 1/],
      [{ id: "mon_0000000000000000" }, "id", /is not a field/],
    ];
    for (const [body, parameter, message] of patches) {
      const answer = await send(server, "PATCH", `/v1/monitors/${monitor.id}`, key, body);
      const details = answer.body.error?.details as { parameter?: string; message: string }[];
      expect([body, answer.status, details[0]?.parameter]).toEqual([body, 400, parameter]);
      expect(details[0]?.message).toMatch(message);
    }
    expect((await send(server, "GET", "/v1/monitors?verbose=1", key)).body.error?.details).toEqual([
      { parameter: "verbose", message: "is not a parameter of this endpoint" },
    ]);
    expect((await server.backend.monitors.list(accountId)).map((each) => each.query)).toEqual(["coffee"]);
    expect(await server.usageTotal(accountId)).toBe(0);
  });

  it("holds an account to its limit of monitors, naming it", async () => {
    const { accountId, key, keyId } = await server.account();
    for (let count = 0; count < MONITOR_LIMITS.perAccount; count++) {
      const created = await server.backend.monitors.create(
        {
          id: newMonitorId(),
          accountId,
          keyId,
          query: `word${count}`,
          delivery: { type: "pull" },
          secret: newMonitorSecret(),
          now: Date.now(),
        },
        MONITOR_LIMITS.perAccount,
      );
      expect(created.ok).toBe(true);
    }
    const refused = await send(server, "POST", "/v1/monitors", key, { query: "one more" });
    expect(refused.status).toBe(400);
    expect(refused.body.error?.code).toBe("invalid_request");
    expect(refused.body.error?.message).toContain(`at most ${MONITOR_LIMITS.perAccount} monitors`);
    const first = (await server.backend.monitors.list(accountId))[0];
    expect((await send(server, "DELETE", `/v1/monitors/${first?.id}`, key)).status).toBe(200);
    expect((await send(server, "POST", "/v1/monitors", key, { query: "one more" })).status).toBe(201);
  });

  it("never shows, changes or deletes another account's monitor", async () => {
    const owner = await server.account();
    const other = await server.account();
    const monitor = await createMonitor(server, owner.key);
    for (const [method, body] of [
      ["GET", undefined],
      ["PATCH", { name: "mine now" }],
      ["DELETE", undefined],
    ] as const) {
      const answer = await send(server, method, `/v1/monitors/${monitor.id}`, other.key, body);
      expect([method, answer.status, answer.body.error?.code]).toEqual([method, 404, "endpoint_not_found"]);
    }
    for (const path of [`/v1/monitors/${monitor.id}/matches`, `/v1/monitors/${monitor.id}/stream`]) {
      expect((await send(server, "GET", path, other.key)).status).toBe(404);
    }
    expect((await send<MonitorView[]>(server, "GET", "/v1/monitors", other.key)).body.data).toEqual([]);
    expect((await send<MonitorView>(server, "GET", `/v1/monitors/${monitor.id}`, owner.key)).body.data).toEqual(
      monitor,
    );
    expect((await send(server, "GET", "/v1/monitors/mon_nope", owner.key)).status).toBe(404);
  });

  it("authenticates every call, and answers other methods with 404 and Allow", async () => {
    const { key, keyId } = await server.account();
    const missing = await send(server, "POST", "/v1/monitors", undefined, { query: "coffee" });
    expect([missing.status, missing.body.error?.code]).toEqual([401, "invalid_api_key"]);
    // An unauthenticated bad body is a 401: the key is checked before the body is read.
    expect((await send(server, "POST", "/v1/monitors", "sk_live_wrong", "not json")).status).toBe(401);
    const put = await send(server, "PUT", "/v1/monitors", key, { query: "coffee" });
    expect(put.status).toBe(404);
    expect(put.headers.get("allow")).toBe("GET, POST");
    await server.revoke(keyId);
    expect((await send(server, "GET", "/v1/monitors", key)).body.error?.code).toBe("revoked_api_key");
  });
});

describe("rate limits", () => {
  it("counts monitor calls against the key's rate, as every call", async () => {
    const server = await startTestServer({ rateLimit: { ratePerSecond: 0.001, burst: 2 } });
    try {
      const { key } = await server.account();
      expect((await send(server, "GET", "/v1/monitors", key)).status).toBe(200);
      expect((await send(server, "POST", "/v1/monitors", key, { query: "coffee" })).status).toBe(201);
      const limited = await send(server, "GET", "/v1/monitors", key);
      expect([limited.status, limited.body.error?.code]).toEqual([429, "rate_limited"]);
      expect(limited.headers.get("retry-after")).toBeString();
    } finally {
      await server.close();
    }
  });
});
