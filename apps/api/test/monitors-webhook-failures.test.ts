// Monitor webhooks that cannot be delivered, on each adapter, with the real server and a real receiver
// on loopback: a receiver that always fails holds the monitor with its last error, and once the retry
// window has passed (the server's clock moved on) pauses it, charging nothing; a receiver on a private
// address, named by its address or by a host name that resolves to it, is never called unless the
// operator allows it; a monitor whose key was revoked is held without its batch being sent; and a
// failing webhook given a new URL delivers there at once, its failing run over.
import { afterEach, describe, expect, test } from "bun:test";
import { isPrivateAddress, MONITOR_LIMITS, type MonitorView } from "@social/core";
import { ADAPTERS, type Adapter, startTestServer, type TestServer } from "./harness.ts";
import { send } from "./monitors.ts";
import {
  auditedBooks,
  eventually,
  match,
  OWN_HOSTNAME,
  type Receiver,
  startReceiver,
  stored,
  webhookMonitor,
  worldTweetIds,
} from "./monitors-webhook-receiver.ts";

const opened: { close(): unknown }[] = [];
afterEach(async () => {
  for (const thing of opened.splice(0).reverse()) await thing.close();
});

async function server(adapter: Adapter, options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const started = await startTestServer({ adapter, webhookRetryBaseMs: 100, ...options });
  opened.push(started);
  return started;
}

function receiverOf(secrets: Map<string, string>, status: number): Receiver {
  const receiver = startReceiver(secrets, () => status);
  opened.push({ close: () => receiver.stop() });
  return receiver;
}

/** The books balance with no charge at all: the balance is what was given. */
async function expectNothingCharged(on: TestServer, accountId: string, given: number) {
  expect(await auditedBooks(on, accountId, [])).toEqual([]);
  expect(await on.balance(accountId)).toBe(given);
}

describe.each(ADAPTERS)("undeliverable monitor webhooks on %s", (adapter) => {
  test("a receiver that always fails holds the monitor, then pauses it after the retry window", async () => {
    let ahead = 0;
    const api = await server(adapter, { allowPrivateWebhooks: true, clock: () => Date.now() + ahead });
    const owner = await api.account(1000);
    const secrets = new Map<string, string>();
    const receiver = receiverOf(secrets, 503);
    const monitor = await webhookMonitor(api, owner, receiver.url, secrets);
    await match(api, monitor, await worldTweetIds(api, 5));

    const failing = await eventually(
      "two failed attempts",
      () => stored(api, monitor),
      (now) => (now.failure?.attempts ?? 0) >= 2,
    );
    expect(failing.status).toBe("active");
    expect(failing.hold?.reason).toBe("webhook_failing");
    expect(failing.failure?.lastError).toBe("The receiver answered HTTP 503: not now");

    // A day later by the server's clock, the next failure is past the retry window.
    ahead = MONITOR_LIMITS.retryWindowMs;
    const paused = await eventually(
      "paused",
      () => stored(api, monitor),
      (now) => now.status === "paused",
    );
    expect(paused.pausedReason?.reason).toBe("webhook_failing");
    expect(paused.pausedReason?.message).toContain("HTTP 503");
    expect(new Set(receiver.deliveries.map((delivery) => delivery.deliveryId))).toEqual(
      new Set([`dlv_${monitor.id}_1_5`]),
    );
    expect(paused.chargedSeq).toBe(0);
    await expectNothingCharged(api, owner.accountId, 1000);
  });

  test("a private address, literal or resolved, is refused unless MONITOR_ALLOW_PRIVATE", async () => {
    const [own] = await Bun.dns.lookup(OWN_HOSTNAME, {});
    // What the second monitor relies on: this machine's name resolves to one of its own addresses.
    expect(isPrivateAddress(own?.address ?? "")).toBe(true);
    const api = await server(adapter);
    const owner = await api.account(1000);
    const secrets = new Map<string, string>();
    const receiver = receiverOf(secrets, 200);
    const byName = receiver.url.replace("127.0.0.1", OWN_HOSTNAME);
    const monitors = [
      await webhookMonitor(api, owner, receiver.url, secrets),
      await webhookMonitor(api, owner, byName, secrets),
    ];
    const ids = await worldTweetIds(api, 3);
    for (const monitor of monitors) await match(api, monitor, ids);

    const [literal, resolved] = await eventually(
      "both refused",
      () => Promise.all(monitors.map((monitor) => stored(api, monitor))),
      (now) => now.every((monitor) => monitor.failure !== undefined),
    );
    expect(literal?.failure?.lastError).toBe(
      "A webhook URL must reach a public address: loopback, private and link-local addresses are refused.",
    );
    expect(resolved?.failure?.lastError).toBe(
      `The webhook's host ${OWN_HOSTNAME} resolves to ${own?.address}: loopback, private and link-local addresses are refused.`,
    );
    expect(receiver.deliveries).toEqual([]);
    await expectNothingCharged(api, owner.accountId, 1000);
  });

  test("a monitor whose key was revoked is held, and its batch neither sent nor charged", async () => {
    const api = await server(adapter, { allowPrivateWebhooks: true });
    const owner = await api.account(1000);
    await api.revoke(owner.keyId);
    const secrets = new Map<string, string>();
    const receiver = receiverOf(secrets, 200);
    const monitor = await webhookMonitor(api, owner, receiver.url, secrets);
    await match(api, monitor, await worldTweetIds(api, 3));
    const held = await eventually(
      "held",
      () => stored(api, monitor),
      (now) => now.hold !== undefined,
    );
    expect(held.hold?.reason).toBe("key_unusable");
    expect(receiver.deliveries).toEqual([]);
    await expectNothingCharged(api, owner.accountId, 1000);
  });
  test("a failing webhook given a new URL delivers there at once, its failing run over", async () => {
    // Retries an hour apart: only the change of URL can bring the delivery forward.
    const api = await server(adapter, { allowPrivateWebhooks: true, webhookRetryBaseMs: 3_600_000 });
    const owner = await api.account(1000);
    const secrets = new Map<string, string>();
    const broken = receiverOf(secrets, 503);
    const fixed = receiverOf(secrets, 200);
    const monitor = await webhookMonitor(api, owner, broken.url, secrets);
    await match(api, monitor, await worldTweetIds(api, 3));
    await eventually(
      "a failed attempt",
      () => stored(api, monitor),
      (now) => now.failure !== undefined,
    );

    const changed = await send<MonitorView>(api, "PATCH", `/v1/monitors/${monitor.id}`, owner.key, {
      delivery: { type: "webhook", url: fixed.url },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ webhook_failure: null, hold: null });
    const delivered = await eventually(
      "delivered to the new URL",
      () => stored(api, monitor),
      (now) => now.chargedSeq === 3,
    );
    expect(delivered.failure).toBeUndefined();
    expect(fixed.accepted().map((delivery) => delivery.deliveryId)).toEqual([`dlv_${monitor.id}_1_3`]);
    expect(await auditedBooks(api, owner.accountId, fixed.accepted())).toEqual([]);
  });
});
