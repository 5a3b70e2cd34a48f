// What the webhook tests share: a real receiver on loopback that checks each delivery's signature with
// the monitor's secret and answers as the test says, monitors made through the port with matches of
// real posts of the world, and waiting for the server's dispatcher to get somewhere.
import { hostname } from "node:os";
import {
  MONITOR_LIMITS,
  type Monitor,
  newMonitorId,
  newMonitorSecret,
  parseSearchQuery,
  verifyWebhookSignature,
} from "@social/core";
import type { TestServer } from "./harness.ts";
import { auditDatabase } from "./reliability/ledger-audit.ts";

export interface Delivery {
  monitorId: string;
  deliveryId: string;
  /** The Social-Delivery header, which must name the body's delivery. */
  header: string | null;
  cursor: number;
  tweetIds: string[];
  /** Whether its Social-Signature verified with the monitor's secret. */
  signed: boolean;
  /** What the receiver answered. */
  status: number;
}

export interface Receiver {
  url: string;
  deliveries: Delivery[];
  /** The deliveries answered 2xx. */
  accepted(): Delivery[];
  stop(): void;
}

/**
 * A receiver on loopback: `answer` picks each delivery's status (its arguments: the delivery, and how
 * many came before it). `secrets` by monitor id; `now` the clock the signature is checked against.
 */
export function startReceiver(
  secrets: Map<string, string>,
  answer: (delivery: Omit<Delivery, "status">, before: number) => number | Promise<number>,
  now: () => number = Date.now,
): Receiver {
  const deliveries: Delivery[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const body = await request.text();
      const payload = JSON.parse(body) as {
        monitor_id: string;
        delivery_id: string;
        cursor: number;
        tweets: { id: string }[];
      };
      const secret = secrets.get(payload.monitor_id) ?? "";
      const seen = {
        monitorId: payload.monitor_id,
        deliveryId: payload.delivery_id,
        header: request.headers.get("social-delivery"),
        cursor: payload.cursor,
        tweetIds: payload.tweets.map((tweet) => tweet.id),
        signed: await verifyWebhookSignature(secret, request.headers.get("social-signature"), body, { nowMs: now() }),
      };
      const before = deliveries.length;
      const delivery = { ...seen, status: 0 };
      deliveries.push(delivery);
      delivery.status = await answer(seen, before);
      return new Response(delivery.status < 300 ? "ok" : "not now", { status: delivery.status });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/hook`,
    deliveries,
    accepted: () => deliveries.filter((delivery) => delivery.status >= 200 && delivery.status < 300),
    stop: () => void server.stop(true),
  };
}

/** The ids of `count` posts of the world, newest first. */
export async function worldTweetIds(server: TestServer, count: number): Promise<string[]> {
  const ids: string[] = [];
  let after: (string | number)[] | undefined;
  do {
    const page = await server.backend.store.searchTweets(parseSearchQuery("the"), "recency", {
      size: 100,
      ...(after ? { after } : {}),
    });
    ids.push(...page.items.map((tweet) => tweet.id));
    after = page.next ? [...page.next] : undefined;
  } while (after && ids.length < count);
  if (ids.length < count) throw new Error(`the world has only ${ids.length} posts with "the"`);
  return ids.slice(0, count);
}

/** A webhook monitor of the account's key, made through the port (free, as the API makes it). */
export async function webhookMonitor(
  server: TestServer,
  owner: { accountId: string; keyId: string },
  url: string,
  secrets: Map<string, string>,
): Promise<Monitor> {
  const created = await server.backend.monitors.create(
    {
      id: newMonitorId(),
      accountId: owner.accountId,
      keyId: owner.keyId,
      query: "the",
      delivery: { type: "webhook", url },
      secret: newMonitorSecret(),
      now: Date.now(),
    },
    MONITOR_LIMITS.perAccount,
  );
  if (!created.ok) throw new Error("the monitor could not be created");
  secrets.set(created.monitor.id, created.monitor.secret);
  return created.monitor;
}

/** Records the posts as the monitor's matches, as the importer's matcher does. */
export function match(server: TestServer, monitor: Monitor, tweetIds: readonly string[]): Promise<void> {
  return server.backend.monitors.recordMatches(
    [],
    tweetIds.map((tweetId) => ({ monitorId: monitor.id, tweetId })),
    Date.now(),
  );
}

/** The monitor as stored now. */
export async function stored(server: TestServer, monitor: Monitor): Promise<Monitor> {
  const found = await server.backend.monitors.get(monitor.accountId, monitor.id);
  if (!found) throw new Error(`${monitor.id} is gone`);
  return found;
}

/** Polls `check` until it holds, or fails after `seconds`, saying what it saw last. */
export async function eventually<T>(
  what: string,
  read: () => Promise<T> | T,
  check: (value: T) => boolean,
  seconds = 60,
) {
  let last: T | undefined;
  for (const started = Date.now(); Date.now() - started < seconds * 1000; await Bun.sleep(50)) {
    last = await read();
    if (check(last)) return last;
  }
  throw new Error(`${what}: not within ${seconds} s; last seen ${JSON.stringify(last)}`);
}

/** This machine's own name, which resolves to one of its own addresses. */
export const OWN_HOSTNAME = hostname();

/**
 * The ledger's equation for the account: its grants are its balance plus its usage rows, and those rows
 * are exactly the deliveries its receiver accepted, each charged its posts (a delivery's charge has the
 * request id of its delivery id).
 */
export async function auditedBooks(on: TestServer, accountId: string, accepted: readonly Delivery[]) {
  const charges = accepted.map((delivery) => ({
    requestId: delivery.deliveryId.replace(/^dlv_/, ""),
    charged: delivery.tweetIds.length,
  }));
  return (await auditDatabase(on.databaseUrl, [{ accountId, charges }])).problems;
}
