// What the monitor tests share: JSON requests to /v1/monitors on a test server, posts of its world to
// record as matches, and matches recorded through the Monitors port as the importer's matcher records
// them.
import type { MonitorView } from "@social/core";
import type { TestServer } from "./harness.ts";

export interface Answer<T = unknown> {
  status: number;
  headers: Headers;
  body: {
    data: T;
    meta: { request_id: string; credits: { charged: number; remaining: number } };
    error?: {
      code: string;
      message: string;
      details?: { parameter?: string; message: string }[] | Record<string, unknown>;
    };
  };
}

export interface MatchesData {
  matches: { seq: number; tweet: { id: string; text: string; author_id: string } }[];
  next_since: number;
  hold: { reason: string; message: string; since: string } | null;
}

/** A request with a JSON body (or none), its answer parsed. */
export async function send<T = unknown>(
  server: TestServer,
  method: string,
  path: string,
  key: string | undefined,
  body?: unknown,
): Promise<Answer<T>> {
  const init: RequestInit =
    body === undefined
      ? { method }
      : {
          method,
          body: typeof body === "string" ? body : JSON.stringify(body),
          headers: { "content-type": "application/json" },
        };
  const response = await server.get(path, key, init);
  return { status: response.status, headers: response.headers, body: (await response.json()) as Answer<T>["body"] };
}

/** A pull monitor of the key's account, created over HTTP. */
export async function createMonitor(
  server: TestServer,
  key: string,
  fields: Record<string, unknown> = {},
): Promise<MonitorView> {
  const answer = await send<MonitorView>(server, "POST", "/v1/monitors", key, { query: "coffee", ...fields });
  if (answer.status !== 201) throw new Error(`create: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.data;
}

/** `count` distinct posts of the world, newest first from a few users' timelines. */
export async function worldTweetIds(server: TestServer, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let user = 1_000_000_001; ids.length < count && user < 1_000_000_100; user++) {
    const page = await server.backend.store.timeline(String(user), "tweets", { size: 20 });
    for (const tweet of page?.items ?? []) if (!ids.includes(tweet.id)) ids.push(tweet.id);
  }
  if (ids.length < count) throw new Error(`the world has fewer than ${count} posts to match`);
  return ids.slice(0, count);
}

/** Records the posts as the monitor's next matches, as the importer's matcher does. */
export function recordMatches(server: TestServer, monitorId: string, tweetIds: readonly string[]): Promise<void> {
  const matches = tweetIds.map((tweetId) => ({ monitorId, tweetId }));
  return server.backend.monitors.recordMatches([], matches, Date.now());
}
