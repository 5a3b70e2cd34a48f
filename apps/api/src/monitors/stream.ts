// GET /v1/monitors/{id}/stream: a pull monitor's matches as Server-Sent Events, each an event with the
// match's seq as its id and the /v1 Tweet as its data, charged as a poll is (core's readMatches) before
// it is written. The stream reads the store for new matches every STREAM_LIMITS.pollMs, and the next
// batch only once the client has taken the last one, writes a comment when it has been quiet for
// heartbeatMs, and ends after lifetimeMs or when the server stops; a client resumes with Last-Event-ID,
// and what it was sent (so paid for) is read again free.
import {
  ApiError,
  invalidRequest,
  MONITOR_LIMITS,
  pullMonitor,
  readMatches,
  StreamParams,
  sincePastCharged,
} from "@social/core";
import { internalError } from "../http/context.ts";
import { admit, answerHeaders, type Caller, queryParams } from "./answer.ts";

export const STREAM_LIMITS = {
  /** Streams one account may hold open at once, in one server process. */
  perAccount: 5,
  /** A stream ends after this; the client reconnects with Last-Event-ID. */
  lifetimeMs: 60 * 60 * 1000,
  /** How often the store is read for new matches. */
  pollMs: 250,
  /** A comment goes out when nothing else did for this long, so proxies keep the connection. */
  heartbeatMs: 15_000,
  /** What EventSource waits before reconnecting once a stream ends (its `retry:` field). */
  retryMs: 1_000,
  /** The wait after a failure of ours (the database away) before reading again. */
  outageWaitMs: 2_000,
};

export type StreamLimits = typeof STREAM_LIMITS;

interface Place {
  /** Aborted when the stream must end: the server stops. */
  signal: AbortSignal;
  leave(): void;
}

/** The streams a server process holds open: counted per account, and ended together when it stops. */
export class MonitorStreams {
  readonly limits: StreamLimits;
  readonly #open = new Map<string, number>();
  readonly #stops = new Set<AbortController>();
  #closing = false;

  constructor(limits: StreamLimits = STREAM_LIMITS) {
    this.limits = limits;
  }

  /** A place for one more stream of the account: too_many_streams past the limit, 503 once stopping. */
  enter(accountId: string): Place {
    if (this.#closing) {
      throw new ApiError("service_unavailable", "The server is stopping: open the stream again", { retryAfter: 1 });
    }
    const open = this.#open.get(accountId) ?? 0;
    if (open >= this.limits.perAccount) {
      throw new ApiError(
        "too_many_streams",
        `This account holds ${open} monitor streams open, the most it may at once: close one, then open this one again`,
      );
    }
    this.#open.set(accountId, open + 1);
    const stop = new AbortController();
    this.#stops.add(stop);
    let left = false;
    return {
      signal: stop.signal,
      leave: () => {
        if (left) return;
        left = true;
        this.#stops.delete(stop);
        const now = (this.#open.get(accountId) ?? 1) - 1;
        if (now === 0) this.#open.delete(accountId);
        else this.#open.set(accountId, now);
      },
    };
  }

  /** Ends every open stream (each writes its last comment and closes) and refuses new ones. */
  closeAll(): void {
    this.#closing = true;
    for (const stop of this.#stops) stop.abort();
  }
}

/** Last-Event-ID, when the client sends one: the seq of the last event it received. */
function lastEventId(request: Request): number | undefined {
  const header = request.headers.get("last-event-id");
  if (header === null) return undefined;
  const seq = /^\d{1,15}$/.test(header.trim()) ? Number(header.trim()) : Number.NaN;
  if (!Number.isSafeInteger(seq)) {
    const message = "must be the id of an event of this stream: a match's seq";
    throw invalidRequest(`Invalid request: Last-Event-ID ${message}`, [{ parameter: "Last-Event-ID", message }]);
  }
  return seq;
}

/** Opens the stream once the key, the monitor and the cursor are good; refusals are the usual envelope. */
export async function streamAnswer(caller: Caller & { server: Server | null }, id: string, streams: MonitorStreams) {
  const admission = await admit(caller, "monitors.stream", async (key) => {
    const params = queryParams(caller.request, StreamParams);
    const resumed = lastEventId(caller.request);
    const monitor = await pullMonitor(caller.services.monitors, key.accountId, id);
    const since = resumed ?? params.since ?? monitor.chargedSeq;
    if (since > monitor.chargedSeq) {
      throw sincePastCharged(monitor.chargedSeq, resumed === undefined ? "since" : "Last-Event-ID");
    }
    return { monitorId: monitor.id, since, place: streams.enter(key.accountId) };
  });
  if (!admission.ok) return admission.response;
  const { value, key, rate } = admission;
  // Bun closes a connection quiet for 10 s; a stream is quiet between matches, and bounded by its lifetime.
  caller.server?.timeout(caller.request, 0);
  const body = matchEvents({
    caller,
    accountId: key.accountId,
    monitorId: value.monitorId,
    since: value.since,
    place: value.place,
    limits: streams.limits,
  });
  return new Response(body, {
    headers: { ...answerHeaders(caller, rate), "content-type": "text/event-stream; charset=utf-8" },
  });
}

/** What a stream needs of Bun's server: the idle timeout of one request. */
interface Server {
  timeout(request: Request, seconds: number): void;
}

interface StreamRun {
  caller: Caller;
  accountId: string;
  monitorId: string;
  since: number;
  place: Place;
  limits: StreamLimits;
}

const encoder = new TextEncoder();

/** How a stream's reading loop writes its events, and learns that the client has taken what was written. */
interface Outlet {
  /** Queues `text` for the client; false once the stream is gone. */
  write(text: string): boolean;
  /** Resolves once the client has taken what was written (or the stream ended), or at `until` (epoch ms). */
  taken(until: number): Promise<void>;
}

function matchEvents(run: StreamRun): ReadableStream<Uint8Array> {
  const ended = new AbortController();
  // Resolves the wait for the client to take what was written: it read, or the stream ended.
  let wake: (() => void) | undefined;
  const woken = () => {
    wake?.();
    wake = undefined;
  };
  const end = () => {
    ended.abort();
    woken();
  };
  run.place.signal.addEventListener("abort", end);
  run.caller.request.signal.addEventListener("abort", end);
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const outlet: Outlet = {
        write(text) {
          try {
            controller.enqueue(encoder.encode(text));
            return true;
          } catch {
            end();
            return false;
          }
        },
        async taken(until) {
          // The server reads (pulls) as the connection takes bytes: a client that stops reading stops the
          // stream here, so neither the matches it has not taken nor their charges run ahead of it.
          if (ended.signal.aborted || (controller.desiredSize ?? 1) > 0) return;
          const waited = new Promise<void>((resolve) => {
            wake = resolve;
          });
          const timer = setTimeout(woken, Math.max(0, until - Date.now()));
          await waited;
          clearTimeout(timer);
        },
      };
      void follow(run, outlet, ended.signal).finally(() => {
        run.place.leave();
        try {
          controller.close();
        } catch {
          // Already closed: the client went away.
        }
      });
    },
    pull: woken,
    cancel: end,
  });
}

/** Sleeps `ms`, or less when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

const event = (name: string, data: unknown, id?: number) =>
  `${id === undefined ? "" : `id: ${id}\n`}event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

/** Reads and writes until the stream ends: its lifetime, the server stopping, the client leaving, or a refusal. */
async function follow(run: StreamRun, outlet: Outlet, ended: AbortSignal): Promise<void> {
  const { limits } = run;
  const deadline = Date.now() + limits.lifetimeMs;
  let cursor = run.since;
  let lastWrite = Date.now();
  let heldFor: string | undefined;
  const send = (text: string) => {
    if (outlet.write(text)) lastWrite = Date.now();
  };
  const hold = (reason: string, message: string) => {
    if (heldFor !== reason) send(event("hold", { reason, message }));
    heldFor = reason;
  };
  send(`retry: ${limits.retryMs}\n\n`);
  while (!ended.aborted && Date.now() < deadline) {
    await outlet.taken(deadline);
    if (ended.aborted || Date.now() >= deadline) break;
    let wait = limits.pollMs;
    try {
      const read = await readMatches(run.caller.services, {
        accountId: run.accountId,
        monitorId: run.monitorId,
        since: cursor,
        max: MONITOR_LIMITS.batch,
        endpoint: "monitors.stream",
        call: `/v1/monitors/${run.monitorId}/stream`,
      });
      // Charged already: were the client gone, what it missed is read again free from its Last-Event-ID.
      for (const match of read.matches) send(event("match", match.tweet, match.seq));
      if (read.hold) hold(read.hold.reason, read.hold.message);
      else heldFor = undefined;
      cursor = read.nextSince;
      if (read.matches.length === MONITOR_LIMITS.batch) continue;
    } catch (error) {
      if (!(error instanceof ApiError)) return reportFailure(run, error, send);
      if (error.code === "insufficient_credits") hold("insufficient_credits", error.message);
      else if (error.code !== "service_unavailable")
        return send(event("end", { code: error.code, message: error.message }));
      else {
        send(`: ${error.message}\n\n`);
        wait = limits.outageWaitMs;
      }
    }
    if (Date.now() - lastWrite >= limits.heartbeatMs) send(": heartbeat\n\n");
    await pause(wait, ended);
  }
  const why = run.place.signal.aborted ? "the server is stopping" : "this stream's time is up";
  send(`: ${why}: reconnect with Last-Event-ID to go on\n\n`);
}

/** A fault of ours: logged with its stack, told to the client without internals. */
function reportFailure(run: StreamRun, error: unknown, send: (text: string) => void): void {
  const failure = internalError(run.caller.requestId, error);
  send(event("end", { code: failure.code, message: failure.message }));
}
