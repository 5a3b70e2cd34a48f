// Monitor webhooks delivered by the real server to a real receiver on loopback, on each adapter: a
// receiver that answers 500 twice and then 200 gets every match exactly once (by delivery id and by
// post), each batch signed with the monitor's secret, a retry carrying the same delivery id and the
// same posts however many match meanwhile; a matched post removed before its delivery is left out and
// not charged; the credits charged are the posts delivered, nothing for the failed attempts; two servers
// on one database deliver each match once; and a batch whose charge is refused after its 2xx is charged
// once credits come, never sent again.
// At the end of each, the ledger's equation holds: the account's grants are its balance plus its usage
// rows, and those rows are exactly the accepted deliveries, each charged its posts.
import { afterEach, describe, expect, test } from "bun:test";
import type { Monitor } from "@social/core";
import { ADAPTERS, type Adapter, startTestServer, type TestServer } from "./harness.ts";
import {
  auditedBooks,
  eventually,
  match,
  type Receiver,
  startReceiver,
  stored,
  webhookMonitor,
  worldTweetIds,
} from "./monitors-webhook-receiver.ts";
import { auditDatabase } from "./reliability/ledger-audit.ts";

const opened: { close(): unknown }[] = [];
afterEach(async () => {
  for (const thing of opened.splice(0).reverse()) await thing.close();
});

async function server(adapter: Adapter, options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const started = await startTestServer({ adapter, allowPrivateWebhooks: true, webhookRetryBaseMs: 100, ...options });
  opened.push(started);
  return started;
}

function receiverOf(secrets: Map<string, string>, answer: Parameters<typeof startReceiver>[1]): Receiver {
  const receiver = startReceiver(secrets, answer);
  opened.push({ close: () => receiver.stop() });
  return receiver;
}

/** The books balance, the charges are the accepted deliveries, and what is left is `given` less `posts`. */
async function expectBooks(on: TestServer, accountId: string, receiver: Receiver, given: number, posts: number) {
  expect(await auditedBooks(on, accountId, receiver.accepted())).toEqual([]);
  expect(await on.balance(accountId)).toBe(given - posts);
}

describe.each(ADAPTERS)("monitor webhooks on %s", (adapter) => {
  test("after two 500s every match arrives once, signed, and only the posts delivered are charged", async () => {
    const api = await server(adapter);
    const owner = await api.account(1000);
    const secrets = new Map<string, string>();
    const receiver = receiverOf(secrets, (_, before) => (before < 2 ? 500 : 200));
    const monitor = await webhookMonitor(api, owner, receiver.url, secrets);
    const ids = await worldTweetIds(api, 151);
    await match(api, monitor, ids);
    // Removed before its delivery (with any retweet of it among the matches): skipped, and not charged.
    await api.backend.worldRemoval().remove("tweets", [ids[120] as string]);
    const kept = new Set((await api.backend.store.tweetsByIds(ids)).map((tweet) => tweet.id));
    const delivered = ids.filter((id) => kept.has(id));
    expect(delivered.length).toBeLessThan(ids.length);

    const done = await eventually(
      "charged through the last match",
      () => stored(api, monitor),
      (now) => now.chargedSeq === 151,
    );
    expect(done).toMatchObject({ lastSeq: 151, chargedSeq: 151, status: "active" });
    expect(done.failure).toBeUndefined();
    expect(done.hold).toBeUndefined();

    const first = `dlv_${monitor.id}_1_100`;
    expect(receiver.deliveries.map((delivery) => [delivery.deliveryId, delivery.status])).toEqual([
      [first, 500],
      [first, 500],
      [first, 200],
      [`dlv_${monitor.id}_101_151`, 200],
    ]);
    for (const delivery of receiver.deliveries) {
      expect({ id: delivery.deliveryId, signed: delivery.signed, header: delivery.header }).toEqual({
        id: delivery.deliveryId,
        signed: true,
        header: delivery.deliveryId,
      });
    }
    const accepted = receiver.accepted();
    expect(accepted.map((delivery) => delivery.cursor)).toEqual([100, 151]);
    expect(accepted.flatMap((delivery) => delivery.tweetIds)).toEqual(delivered);
    await expectBooks(api, owner.accountId, receiver, 1000, delivered.length);
  });

  test("a batch is retried as it was sent, under its delivery id, while new matches arrive", async () => {
    const api = await server(adapter);
    const owner = await api.account(1000);
    const secrets = new Map<string, string>();
    const ids = await worldTweetIds(api, 8);
    let monitor: Monitor | undefined;
    // The first attempt fails after the receiver has seen it (as a timeout, or a server killed before the
    // 2xx reached it, would): three more posts match meanwhile.
    const receiver = receiverOf(secrets, async (_, before) => {
      if (before > 0) return 200;
      await match(api, monitor as Monitor, ids.slice(5));
      return 500;
    });
    monitor = await webhookMonitor(api, owner, receiver.url, secrets);
    await match(api, monitor, ids.slice(0, 5));
    await eventually(
      "charged through the last match",
      () => stored(api, monitor as Monitor),
      (now) => now.chargedSeq === 8,
    );

    const first = `dlv_${monitor.id}_1_5`;
    expect(receiver.deliveries.map((delivery) => [delivery.deliveryId, delivery.status, delivery.tweetIds])).toEqual([
      [first, 500, ids.slice(0, 5)],
      [first, 200, ids.slice(0, 5)],
      [`dlv_${monitor.id}_6_8`, 200, ids.slice(5)],
    ]);
    await expectBooks(api, owner.accountId, receiver, 1000, ids.length);
  });

  test("two servers on one database deliver each match of each monitor once", async () => {
    const first = await server(adapter);
    const second = await server(adapter, { sharing: first });
    const owner = await first.account(10_000);
    const secrets = new Map<string, string>();
    // A receiver that takes a moment, so that both servers have deliveries in flight together.
    const receiver = receiverOf(secrets, async () => {
      await Bun.sleep(20);
      return 200;
    });
    const ids = await worldTweetIds(first, 120);
    const monitors: Monitor[] = [];
    for (let index = 0; index < 6; index++) {
      const monitor = await webhookMonitor(first, owner, receiver.url, secrets);
      await match(index % 2 === 0 ? first : second, monitor, ids);
      monitors.push(monitor);
    }
    await eventually(
      "every monitor charged through its last match",
      () => Promise.all(monitors.map((monitor) => stored(first, monitor))),
      (now) => now.every((monitor) => monitor.chargedSeq === ids.length),
    );

    const deliveryIds = receiver.deliveries.map((delivery) => delivery.deliveryId);
    expect(new Set(deliveryIds).size).toBe(deliveryIds.length);
    for (const monitor of monitors) {
      const its = receiver.accepted().filter((delivery) => delivery.monitorId === monitor.id);
      expect(its.flatMap((delivery) => delivery.tweetIds)).toEqual(ids);
    }
    expect(receiver.deliveries.every((delivery) => delivery.signed && delivery.status === 200)).toBe(true);
    await expectBooks(first, owner.accountId, receiver, 10_000, monitors.length * ids.length);
  });
  test("a batch taken whose debit was then refused is charged once credits come, and never sent again", async () => {
    let ahead = 0;
    const api = await server(adapter, { clock: () => Date.now() + ahead });
    const owner = await api.account(5);
    const secrets = new Map<string, string>();
    const elsewhere = { requestId: "req_spent_elsewhere", keyId: owner.keyId, endpoint: "search.recent", credits: 3 };
    // While the first batch is on its way, another request of the account spends most of its balance.
    const receiver = receiverOf(secrets, async (_, before) => {
      if (before === 0) await api.backend.ledger.debit(owner.accountId, elsewhere);
      return 200;
    });
    const monitor = await webhookMonitor(api, owner, receiver.url, secrets);
    const ids = await worldTweetIds(api, 8);
    await match(api, monitor, ids.slice(0, 5));
    await eventually(
      "the refused charge held",
      () => stored(api, monitor),
      (now) => now.hold?.reason === "insufficient_credits",
    );

    // Credits come, and more matches; the next attempt is due.
    await api.backend.accounts.grantCredits(owner.accountId, 6);
    await match(api, monitor, ids.slice(5));
    ahead = 2 * 60_000;
    await eventually(
      "charged through the last match",
      () => stored(api, monitor),
      (now) => now.chargedSeq === 8,
    );
    expect(receiver.deliveries.map((delivery) => delivery.deliveryId)).toEqual([
      `dlv_${monitor.id}_1_5`,
      `dlv_${monitor.id}_6_8`,
    ]);
    expect(receiver.accepted().flatMap((delivery) => delivery.tweetIds)).toEqual(ids);
    const charges = [
      { requestId: elsewhere.requestId, charged: 3 },
      ...receiver.accepted().map((delivery) => ({
        requestId: delivery.deliveryId.replace(/^dlv_/, ""),
        charged: delivery.tweetIds.length,
      })),
    ];
    expect((await auditDatabase(api.databaseUrl, [{ accountId: owner.accountId, charges }])).problems).toEqual([]);
    expect(await api.balance(owner.accountId)).toBe(0);
  });
});
