// GET /v1/monitors/{id}/stream over real HTTP on both adapters: matches arrive as Server-Sent Events, a
// client that disconnects and resumes with Last-Event-ID gets every match once, in order, and pays for
// each once; the account's open streams are bounded, stopping the server ends them cleanly, and a
// client that stops reading holds its stream where it is (nothing more read or charged).
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { connect } from "node:net";
import { ADAPTERS, startTestServer, type TestServer, worldTemplate } from "./harness.ts";
import { createMonitor, recordMatches, send, worldTweetIds } from "./monitors.ts";
import { auditDatabase } from "./reliability/ledger-audit.ts";

interface StreamEvent {
  id?: string;
  event: string;
  data: string;
}

/** A stream read as an EventSource reads it: events, with comments kept apart. */
class EventReader {
  readonly response: Response;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  readonly #abort: AbortController;
  #buffer = "";
  readonly comments: string[] = [];
  ended = false;

  constructor(response: Response, abort: AbortController) {
    this.response = response;
    this.#abort = abort;
    this.#reader = (response.body as ReadableStream<Uint8Array>).getReader();
  }

  /** The next event that is not a comment; undefined once the stream has ended. */
  async next(): Promise<StreamEvent | undefined> {
    for (;;) {
      const end = this.#buffer.indexOf("\n\n");
      if (end >= 0) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        const fields = block.split("\n");
        const comments = fields.filter((line) => line.startsWith(":"));
        this.comments.push(...comments);
        const parsed = Object.fromEntries(
          fields
            .filter((line) => !line.startsWith(":"))
            .map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 2)]),
        );
        if (parsed.event === undefined) continue;
        return parsed as unknown as StreamEvent;
      }
      const chunk = await this.#reader.read();
      if (chunk.done) {
        this.ended = true;
        return undefined;
      }
      this.#buffer += this.#decoder.decode(chunk.value, { stream: true });
    }
  }

  /** The next `count` match events. */
  async matches(count: number): Promise<StreamEvent[]> {
    const events: StreamEvent[] = [];
    while (events.length < count) {
      const event = await this.next();
      if (!event) throw new Error(`the stream ended after ${events.length} of ${count} matches`);
      if (event.event === "match") events.push(event);
    }
    return events;
  }

  close(): void {
    this.#abort.abort();
  }
}

async function openStream(server: TestServer, path: string, key: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const response = await server.get(path, key, { headers, signal: abort.signal });
  return new EventReader(response, abort);
}

/** Tries `attempt` until it gives a value, for at most about 5 s (a closed stream's place frees as the server sees it go). */
async function eventually<T>(attempt: () => Promise<T | undefined>): Promise<T> {
  for (let tries = 0; tries < 100; tries++) {
    const value = await attempt();
    if (value !== undefined) return value;
    await Bun.sleep(50);
  }
  throw new Error("never happened");
}

describe.each(ADAPTERS)("on %s", (adapter) => {
  let server: TestServer;
  let posts: string[];
  let paying: string[] = [];
  beforeAll(async () => {
    server = await startTestServer({ adapter });
    posts = await worldTweetIds(server, 12);
  });
  afterAll(async () => {
    // Grants = balance + usage for the accounts whose streams charged, read from the database itself.
    await server.stop();
    const accounts = paying.map((accountId) => ({ accountId, charges: [] }));
    const audit = await auditDatabase(server.databaseUrl, accounts, { unansweredAllowed: Number.POSITIVE_INFINITY });
    expect(audit.problems).toEqual([]);
    await server.close();
  });

  it("sends each match once across a disconnect and a Last-Event-ID resume, paid once", async () => {
    const { accountId, key } = await server.account(100);
    paying = [...paying, accountId];
    const monitor = await createMonitor(server, key);
    await recordMatches(server, monitor.id, posts.slice(0, 3));
    const path = `/v1/monitors/${monitor.id}/stream?since=0`;

    const first = await openStream(server, path, key);
    expect(first.response.status).toBe(200);
    expect(first.response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(first.response.headers.get("cache-control")).toBe("no-store");
    const opening = await first.matches(3);
    expect(opening.map((event) => event.id)).toEqual(["1", "2", "3"]);
    const tweets = await server.backend.store.tweetsByIds(posts.slice(0, 3));
    expect(opening.map((event) => JSON.parse(event.data))).toEqual(JSON.parse(JSON.stringify(tweets)));
    // Matches recorded while it is open arrive on it.
    await recordMatches(server, monitor.id, posts.slice(3, 5));
    expect((await first.matches(2)).map((event) => event.id)).toEqual(["4", "5"]);
    first.close();

    await recordMatches(server, monitor.id, posts.slice(5, 8));
    const resumed = await openStream(server, path, key, { "last-event-id": "5" });
    const rest = await resumed.matches(3);
    expect(rest.map((event) => event.id)).toEqual(["6", "7", "8"]);
    expect(rest.map((event) => (JSON.parse(event.data) as { id: string }).id)).toEqual(posts.slice(5, 8));
    resumed.close();

    // Reading again from an earlier event is free: everything up to 8 was paid once.
    const again = await openStream(server, path, key, { "last-event-id": "6" });
    expect((await again.matches(2)).map((event) => event.id)).toEqual(["7", "8"]);
    again.close();
    expect(await server.usageTotal(accountId)).toBe(8);
    expect(await server.balance(accountId)).toBe(92);
  });

  it("says a hold while new matches cannot be paid, and goes on once credits arrive", async () => {
    const { accountId, key } = await server.account(0);
    paying = [...paying, accountId];
    const monitor = await createMonitor(server, key);
    await recordMatches(server, monitor.id, posts.slice(0, 2));
    const stream = await openStream(server, `/v1/monitors/${monitor.id}/stream`, key);
    const hold = await stream.next();
    expect(hold?.event).toBe("hold");
    expect(JSON.parse(hold?.data ?? "{}")).toMatchObject({ reason: "insufficient_credits" });
    await server.backend.accounts.grantCredits(accountId, 5);
    expect((await stream.matches(2)).map((event) => event.id)).toEqual(["1", "2"]);
    stream.close();
    expect(await server.usageTotal(accountId)).toBe(2);
  });

  it("refuses a webhook monitor, a bad Last-Event-ID and a cursor past what was paid, in the envelope", async () => {
    const { key } = await server.account(100);
    const webhook = await createMonitor(server, key, {
      delivery: { type: "webhook", url: "https://hooks.example.com/in" },
    });
    const conflict = await send(server, "GET", `/v1/monitors/${webhook.id}/stream`, key);
    expect([conflict.status, conflict.body.error?.code]).toEqual([409, "monitor_delivers_by_webhook"]);
    const monitor = await createMonitor(server, key);
    const path = `/v1/monitors/${monitor.id}/stream`;
    for (const [headers, query, parameter] of [
      [{ "last-event-id": "five" }, "", "Last-Event-ID"],
      [{ "last-event-id": "3" }, "", "Last-Event-ID"],
      [{}, "?since=2", "since"],
      [{}, "?max_results=2", "max_results"],
    ] as const) {
      const response = await server.get(`${path}${query}`, key, { headers });
      const body = (await response.json()) as { error: { details: { parameter: string }[] } };
      expect([response.status, body.error.details[0]?.parameter]).toEqual([400, parameter]);
    }
  });

  it("ends with an end event when its monitor is deleted", async () => {
    const { key } = await server.account(100);
    const monitor = await createMonitor(server, key);
    const stream = await openStream(server, `/v1/monitors/${monitor.id}/stream`, key);
    expect((await send(server, "DELETE", `/v1/monitors/${monitor.id}`, key)).status).toBe(200);
    const end = await stream.next();
    expect(end?.event).toBe("end");
    expect(JSON.parse(end?.data ?? "{}")).toMatchObject({ code: "endpoint_not_found" });
    expect(await stream.next()).toBeUndefined();
  });

  it("holds an account to 5 open streams", async () => {
    const { key } = await server.account(100);
    const monitor = await createMonitor(server, key);
    const path = `/v1/monitors/${monitor.id}/stream`;
    const open = await Promise.all([1, 2, 3, 4, 5].map(() => openStream(server, path, key)));
    expect(open.map((stream) => stream.response.status)).toEqual([200, 200, 200, 200, 200]);
    const refused = await send(server, "GET", path, key);
    expect([refused.status, refused.body.error?.code]).toEqual([429, "too_many_streams"]);
    // Another account is not held to this one's.
    const other = await server.account(100);
    const theirs = await openStream(
      server,
      `/v1/monitors/${(await createMonitor(server, other.key)).id}/stream`,
      other.key,
    );
    expect(theirs.response.status).toBe(200);
    theirs.close();
    open[0]?.close();
    const reopened = await eventually(async () => {
      const stream = await openStream(server, path, key);
      if (stream.response.status === 200) return stream;
      stream.close();
      return undefined;
    });
    for (const stream of [...open.slice(1), reopened]) stream.close();
  });
});

describe("stopping the server", () => {
  it("ends its open streams with a last comment, and stops", async () => {
    const server = await startTestServer();
    try {
      const { key } = await server.account(100);
      const monitor = await createMonitor(server, key);
      const stream = await openStream(server, `/v1/monitors/${monitor.id}/stream`, key);
      expect(stream.response.status).toBe(200);
      await server.stop();
      expect(await stream.next()).toBeUndefined();
      expect(stream.ended).toBe(true);
      expect(stream.comments.at(-1)).toContain("the server is stopping: reconnect with Last-Event-ID");
    } finally {
      await server.close();
    }
  });
});

describe("a client that stops reading", () => {
  it("holds the stream to what its connection takes: the backlog is neither read nor charged ahead", async () => {
    const server = await startTestServer();
    try {
      const { accountId, key } = await server.account(100_000);
      const monitor = await createMonitor(server, key);
      // More matches than the connection's buffers hold as events (posts the world shows, so each is one).
      const world = new Database(worldTemplate(), { readonly: true });
      const rows = world.query<{ id: string }, []>("SELECT CAST(id AS TEXT) AS id FROM tweets LIMIT 16000").all();
      world.close();
      const ids: string[] = [];
      for (let at = 0; at < rows.length; at += 500) {
        const shown = await server.backend.store.tweetsByIds(rows.slice(at, at + 500).map((row) => row.id));
        ids.push(...shown.map((tweet) => tweet.id));
      }
      await recordMatches(server, monitor.id, ids);

      // A client that sends its request, takes the first bytes of the answer, and reads no more.
      const url = new URL(server.url);
      const socket = connect(Number(url.port), url.hostname);
      socket.write(
        `GET /v1/monitors/${monitor.id}/stream HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${key}\r\n\r\n`,
      );
      await new Promise((resolve) => socket.once("data", resolve));
      socket.pause();

      // The server goes on until it cannot write: then its cursor stays where the connection filled up.
      let charged = -1;
      for (let still = 0; still < 10; ) {
        await Bun.sleep(100);
        const now = (await server.backend.monitors.get(accountId, monitor.id))?.chargedSeq ?? -1;
        still = now === charged ? still + 1 : 0;
        charged = now;
      }
      socket.destroy();
      expect(charged).toBeGreaterThan(0);
      expect(charged).toBeLessThan(ids.length);
    } finally {
      await server.close();
    }
  });
});
