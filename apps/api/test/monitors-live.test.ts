// Monitors end to end with every part real, on each adapter: the API server as its own process
// (`npm start`'s entry, MONITOR_ALLOW_PRIVATE=true, a short MONITOR_RETRY_BASE_MS), an account with
// credits, a webhook monitor and a pull monitor created over HTTP, `admin import --follow FILE` as its own
// process, and posts appended to FILE over time. While they arrive, the server is SIGKILLed and restarted
// twice (once in the middle of a delivery the receiver has stored) and the follower once; a receiver on
// loopback checks every delivery's signature with core's verifyWebhookSignature and answers 500 now and
// then, and a client polls the pull monitor throughout.
// Then: the receiver got every matching post, in order, each once per delivery id (a post comes twice only
// in a delivery repeated after a kill, under the same delivery id); a poll from since=0 returns every
// post the pull monitor matched, once, in order; each monitor was charged exactly once for each of its
// matches, the webhook's charges being the deliveries the receiver accepted; and grants = balance + usage.
// Every wait polls its condition; none is a fixed sleep.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openBackend } from "@social/composition";
import type { MonitorView } from "@social/core";
import { type PostgresServer, startPostgres } from "@social/store-postgres/testing";
import type { Adapter } from "./harness.ts";
import {
  type Follower,
  follow,
  type PolledMatch,
  pollMatches,
  postsMentioning,
  startPolling,
  writePosts,
} from "./monitors-live.ts";
import { type Delivery, eventually, startReceiver } from "./monitors-webhook-receiver.ts";
import { auditDatabase } from "./reliability/ledger-audit.ts";
import { type ServerProcess, spawnServer } from "./reliability/server-process.ts";

const POSTS = 300;
const POST_EVERY_MS = 20;
/** When each kill comes: after this many posts are written. */
const KILL_SERVER_AT = [60, 210];
const KILL_FOLLOWER_AT = 130;
const GRANT = 10_000;
const SERVER_ENV = { WORLD: "empty", MONITOR_ALLOW_PRIVATE: "true", MONITOR_RETRY_BASE_MS: "100" };
/**
 * A kill that lands while a delivery holds its claim leaves the claim to expire (60 s) before the
 * restarted server delivers again, and a charge it left half-made is settled after as long: the first
 * kill does, so the webhook's last posts come a minute after the server's restart.
 */
const SETTLE_SECONDS = 150;

let dir: string;
let postgres: PostgresServer | undefined;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "monitors-live-"));
});

afterAll(() => {
  postgres?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A new, empty database: what spawnServer is given, and its DATABASE_URL. */
async function emptyDatabase(adapter: Adapter): Promise<{ target: string; url: string }> {
  if (adapter === "sqlite") {
    const path = join(dir, "live.db");
    return { target: path, url: `file:${path}` };
  }
  postgres ??= await startPostgres();
  const url = await postgres.createDatabase("live");
  return { target: url, url };
}

async function createMonitor(url: string, key: string, fields: Record<string, unknown>): Promise<MonitorView> {
  const response = await fetch(`${url}/v1/monitors`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(fields),
  });
  const body = (await response.json()) as { data: MonitorView };
  if (response.status !== 201) throw new Error(`create: ${response.status} ${JSON.stringify(body)}`);
  return body.data;
}

/** The monitor as the API shows it, or undefined while the server does not answer. */
async function monitorNow(url: string, key: string, id: string): Promise<MonitorView | undefined> {
  try {
    const response = await fetch(`${url}/v1/monitors/${id}`, { headers: { authorization: `Bearer ${key}` } });
    return response.status === 200 ? ((await response.json()) as { data: MonitorView }).data : undefined;
  } catch {
    return undefined;
  }
}

/** Every match from since=0 on, page after page, until the monitor's newest. */
async function pollEverything(url: string, key: string, id: string, lastSeq: number): Promise<PolledMatch[]> {
  const matches: PolledMatch[] = [];
  let since = 0;
  await eventually(
    "a poll from since=0 to reach the newest match",
    async () => {
      // A charge left half-made by a kill is settled once it is stale: until then the poll is a 503.
      const answer = await pollMatches(url, key, id, since);
      if (answer.body) {
        matches.push(...answer.body.data.matches);
        since = answer.body.data.next_since;
      }
      return { status: answer.status, since };
    },
    (now) => now.since === lastSeq,
    SETTLE_SECONDS,
  );
  return matches;
}

/**
 * The deliveries the receiver accepted, each delivery id once (its first acceptance), and the ids accepted
 * again that no kill explains: with no server kill between the two (`killsAt`: how many deliveries the
 * receiver had had at each kill), or carrying other posts the second time.
 */
function acceptedOnce(deliveries: readonly Delivery[], killsAt: readonly number[]) {
  const first = new Map<string, { index: number; delivery: Delivery }>();
  const unexplained: string[] = [];
  let repeated = 0;
  deliveries.forEach((delivery, index) => {
    if (delivery.status < 200 || delivery.status >= 300) return;
    const earlier = first.get(delivery.deliveryId);
    if (!earlier) {
      first.set(delivery.deliveryId, { index, delivery });
      return;
    }
    repeated++;
    const killBetween = killsAt.some((at) => earlier.index < at && at <= index);
    if (!killBetween || !Bun.deepEquals(earlier.delivery.tweetIds, delivery.tweetIds)) {
      unexplained.push(delivery.deliveryId);
    }
  });
  return { distinct: [...first.values()].map((entry) => entry.delivery), repeated, unexplained };
}

/** The usage rows of one monitor's charges: each (from, through] range of its seqs, with its credits. */
function chargesOf(rows: readonly { requestId: string; credits: number }[], monitorId: string) {
  const prefix = `${monitorId}_`;
  return rows
    .filter((row) => row.requestId.startsWith(prefix))
    .map((row) => {
      const [from, through] = row.requestId.slice(prefix.length).split("_").map(Number) as [number, number];
      return { requestId: row.requestId, from, through, credits: row.credits };
    })
    .sort((a, b) => a.from - b.from);
}

/** Whether the charges' seq ranges follow each other from 1, with no gap and no overlap. */
function tileFromOne(charges: readonly { from: number; through: number }[]): boolean {
  return charges.every(
    (charge, index) => charge.from === (charges[index - 1]?.through ?? 0) + 1 && charge.through >= charge.from,
  );
}

describe.each(["sqlite", "postgres"] as const)("monitors live on %s", (adapter) => {
  test(
    "posts imported while the server and the follower are killed: each delivered, served and charged once",
    async () => {
      const { target, url: databaseUrl } = await emptyDatabase(adapter);
      // The database is opened (and migrated) before any process starts, as an operator's set-up has it.
      const backend = await openBackend(databaseUrl, { max: 2 });
      const { account, key: created } = await backend.accounts.openAccount("live", GRANT);
      const key = created.key;
      await backend.close();

      let server: ServerProcess = await spawnServer(target, SERVER_ENV);
      const secrets = new Map<string, string>();
      // Every second delivery is refused, so that batches are retried; and the one that comes once
      // `holding` is set is kept unanswered until the server is killed, then accepted: the receiver has
      // stored it, and the server never heard so.
      let holding = false;
      let held: Omit<Delivery, "status"> | undefined;
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const receiver = startReceiver(secrets, async (delivery, before) => {
        if (!holding) return before % 2 === 1 ? 500 : 200;
        holding = false;
        held = delivery;
        await released;
        return 200;
      });
      const path = join(dir, `${adapter}-live.jsonl`);
      writeFileSync(path, "");
      let follower: Follower | undefined = follow(databaseUrl, path);
      try {
        const hook = await createMonitor(server.url, key, {
          query: "coffee",
          delivery: { type: "webhook", url: receiver.url },
        });
        secrets.set(hook.id, hook.secret as string);
        const pull = await createMonitor(server.url, key, { query: "tea" });
        const coffee = postsMentioning("coffee", POSTS);
        const tea = postsMentioning("tea", POSTS);

        const writer = writePosts(path, POSTS, POST_EVERY_MS);
        const poller = startPolling(() => server.url, key, pull.id, 100);
        const written = (count: number) => eventually(`${count} posts written`, writer.written, (n) => n >= count);
        const killsAt: number[] = [];
        const restartServer = async () => {
          await server.kill();
          killsAt.push(receiver.deliveries.length);
          release();
          server = await spawnServer(target, SERVER_ENV);
        };
        // The first kill lands in the middle of a delivery: its claim expires before it is sent again.
        await written(KILL_SERVER_AT[0] as number);
        holding = true;
        const caught = await eventually(
          "a delivery to hold",
          () => held,
          (delivery) => delivery !== undefined,
        );
        await restartServer();
        await written(KILL_FOLLOWER_AT);
        await follower.kill();
        follower = follow(databaseUrl, path);
        await written(KILL_SERVER_AT[1] as number);
        await restartServer();
        await writer.done;

        // Settled: every match charged, and the delivery that charged the last one recorded, which ends a
        // failing run.
        const settled = (id: string, count: number) =>
          eventually(
            `${id} to match and charge ${count} posts`,
            () => monitorNow(server.url, key, id),
            (monitor) =>
              monitor?.matches === count && monitor.charged_through === count && monitor.webhook_failure === null,
            SETTLE_SECONDS,
          );
        const hookDone = await settled(hook.id, coffee.length);
        expect(hookDone).toMatchObject({ status: "active", hold: null });
        await poller.stop();
        // The poller met the server down, and otherwise only answers (a 503 while a charge a kill left
        // half-made waits to be settled).
        expect(poller.unanswered()).toBeGreaterThan(0);
        expect(poller.statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
        const polled = await pollEverything(server.url, key, pull.id, tea.length);
        await settled(pull.id, tea.length);

        // The receiver: every delivery signed and named in its header; every post once per delivery id,
        // in order; a delivery id accepted twice only after a kill (its answer died with the server).
        expect(receiver.deliveries.length).toBeGreaterThan(0);
        expect(
          receiver.deliveries.filter((delivery) => !delivery.signed || delivery.header !== delivery.deliveryId),
        ).toEqual([]);
        expect(receiver.deliveries.some((delivery) => delivery.status === 500)).toBe(true);
        const { distinct, repeated, unexplained } = acceptedOnce(receiver.deliveries, killsAt);
        const refused = receiver.deliveries.filter((delivery) => delivery.status === 500).length;
        const busy = poller.statuses.filter((status) => status === 503).length;
        console.log(
          `${adapter}: ${receiver.deliveries.length} deliveries (${refused} answered 500, ${repeated} accepted again after a kill); ` +
            `${poller.statuses.length} polls answered (${busy} 503), ${poller.unanswered()} unanswered`,
        );
        expect(unexplained).toEqual([]);
        expect(receiver.accepted().filter((delivery) => delivery.deliveryId === caught?.deliveryId)).toHaveLength(2);
        expect(distinct.flatMap((delivery) => delivery.tweetIds)).toEqual(coffee);
        expect(distinct.at(-1)?.cursor).toBe(coffee.length);

        // The poll from since=0: every post the pull monitor matched, once, in order.
        expect(polled.map((match) => match.tweet.id)).toEqual(tea);
        expect(polled.map((match) => match.seq)).toEqual(tea.map((_, index) => index + 1));

        // The account's usage names each monitor's charges as the dashboard does.
        const usage = await fetch(`${server.url}/v1/usage?group_by=endpoint`, {
          headers: { authorization: `Bearer ${key}` },
        });
        const { groups } = ((await usage.json()) as { data: { groups: { endpoint: string; credits: number }[] } }).data;
        expect(Object.fromEntries(groups.map((group) => [group.endpoint, group.credits]))).toEqual({
          "monitor webhook deliveries": coffee.length,
          "/v1/monitors/{id}/matches": tea.length,
        });

        // Stopped, so that nothing is in flight while the books are read.
        await server.stop();
        const followed = await follower.stop();
        follower = undefined;
        expect(followed.code).toBe(0);

        // The books: grants = balance + usage, balance never below zero; and the usage rows are one charge
        // per match of each monitor, the webhook's being exactly the deliveries accepted.
        const books = await auditDatabase(databaseUrl, [{ accountId: account.id, charges: [] }], {
          unansweredAllowed: Number.POSITIVE_INFINITY,
        });
        expect(books.problems).toEqual([]);
        const rows = books.unanswered;
        const hookCharges = chargesOf(rows, hook.id);
        const pullCharges = chargesOf(rows, pull.id);
        expect(hookCharges.length + pullCharges.length).toBe(rows.length);
        expect([tileFromOne(hookCharges), tileFromOne(pullCharges)]).toEqual([true, true]);
        expect(hookCharges.at(-1)?.through).toBe(coffee.length);
        expect(pullCharges.at(-1)?.through).toBe(tea.length);
        expect(hookCharges.map((charge) => [`dlv_${charge.requestId}`, charge.credits])).toEqual(
          distinct.map((delivery) => [delivery.deliveryId, delivery.tweetIds.length]),
        );
        const credits = (charges: readonly { credits: number }[]) => charges.reduce((sum, c) => sum + c.credits, 0);
        expect([credits(hookCharges), credits(pullCharges)]).toEqual([coffee.length, tea.length]);
        const after = await openBackend(databaseUrl, { max: 1 });
        try {
          expect(await after.ledger.balance(account.id)).toBe(GRANT - coffee.length - tea.length);
        } finally {
          await after.close();
        }
      } finally {
        receiver.stop();
        if (server.running()) await server.kill();
        await follower?.kill();
      }
    },
    (SETTLE_SECONDS + 90) * 1000,
  );
});
