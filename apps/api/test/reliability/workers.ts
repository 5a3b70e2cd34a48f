// Reading a supervised server from outside: which worker served a request (its request-log line names
// the pid), and a key hammered through every worker to see its rate limit from the client's side.
import { examples } from "@social/fixtures";
import type { ServerProcess } from "./server-process.ts";

/**
 * Request id → pid of the worker that served each of `requestIds`, from the request log. A worker writes
 * its line after the answer has gone out, so the lines of the last answers may still be on their way:
 * read again until every id has one (or a few seconds have passed, and the caller sees which lack one).
 */
export async function servedBy(server: ServerProcess, requestIds: readonly string[]): Promise<Map<string, number>> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const served = new Map<string, number>();
    for (const line of (await server.logs()).split("\n")) {
      if (!line.startsWith("{")) continue;
      const entry = JSON.parse(line) as { id?: unknown; pid?: unknown };
      if (typeof entry.id === "string" && typeof entry.pid === "number") served.set(entry.id, entry.pid);
    }
    if (requestIds.every((id) => served.has(id)) || Date.now() > deadline) return served;
    await Bun.sleep(50);
  }
}

/** One answer to a rate-limited key, as its client saw it. */
export interface Hit {
  status: number;
  requestId: string;
  /** x-rate-limit-limit: the bucket's capacity, which says whose bucket counted it. */
  limit: number;
  retryAfter: string | null;
  /** performance.now() when it was sent and answered. */
  sentAt: number;
  answeredAt: number;
}

/** `concurrency` clients sending a charged lookup with `key` back to back for `ms`. */
export async function hammer(url: string, key: string, ms: number, concurrency = 16): Promise<Hit[]> {
  const hits: Hit[] = [];
  const until = performance.now() + ms;
  const client = async () => {
    while (performance.now() < until) {
      const sentAt = performance.now();
      const response = await fetch(`${url}/v1/tweets/${examples.tweet_id}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      await response.arrayBuffer();
      hits.push({
        status: response.status,
        requestId: response.headers.get("x-request-id") ?? "",
        limit: Number(response.headers.get("x-rate-limit-limit")),
        retryAfter: response.headers.get("retry-after"),
        sentAt,
        answeredAt: performance.now(),
      });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  return hits;
}
