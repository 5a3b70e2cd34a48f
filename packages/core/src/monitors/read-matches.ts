// Reading a pull monitor's matches, as the poll, the stream and the MCP tool all do: the matches above
// the reader's cursor, the new ones (above the monitor's chargedSeq) paid for 1 credit each through
// chargeDelivery before they are returned, as many as the daily cap, the monitor key's limit and the
// balance allow; the ones paid for before are read again free. A post removed from the world since it
// matched is left out and costs nothing, and the cursor moves past it.
import * as v from "valibot";
import { insufficientCredits } from "../billing/credit-refusal.ts";
import { strict } from "../catalogue/shared.ts";
import { ApiError, invalidRequest } from "../errors.ts";
import type { Tweet } from "../model.ts";
import { integerParam } from "../params.ts";
import type { Accounts } from "../ports/accounts.ts";
import type { Ledger } from "../ports/ledger.ts";
import type { MonitorMatch, Monitors } from "../ports/monitors.ts";
import type { Store } from "../ports/store.ts";
import { chargeDelivery, deliverablePosts, settleStaleCharge } from "./charge.ts";
import type { MonitorEndpoint } from "./endpoints.ts";
import { CREDITS_PER_DELIVERED_POST, MONITOR_LIMITS, type Monitor, type MonitorNotice } from "./model.ts";
import { monitorIdOf, noSuchMonitor } from "./settings.ts";

const sinceRule = "must be a match's seq: an integer from 0";

/** A cursor: the seq of the last match a reader has; matches above it are read. */
export const sinceSchema = v.pipe(v.number(sinceRule), v.integer(sinceRule), v.minValue(0, sinceRule));

/** The reader's cursor, as the poll and the stream take it. */
export const sinceParam = v.optional(
  v.pipe(sinceSchema, v.description("Matches above this seq; by default the monitor's charged_through: the new ones")),
);

/** GET /v1/monitors/{id}/matches's query. */
export const MatchesParams = strict({
  since: sinceParam,
  max_results: integerParam(1, MONITOR_LIMITS.batch, MONITOR_LIMITS.batch),
});

/** GET /v1/monitors/{id}/stream's query: where a new stream starts (Last-Event-ID, when sent, wins). */
export const StreamParams = strict({ since: sinceParam });

export interface MonitorServices {
  store: Store;
  ledger: Ledger;
  monitors: Monitors;
  /** The monitor's key: what its own limit still pays for bounds a read, as the balance does. */
  accounts: Pick<Accounts, "key">;
}

export interface MatchesRequest {
  accountId: string;
  monitorId: string;
  /** The reader's cursor: matches above it. The monitor's chargedSeq (what is new) when absent. */
  since?: number;
  /** At most this many matches (MONITOR_LIMITS.batch at most). */
  max: number;
  /** The usage row's endpoint and call (none for MCP, whose reads the request log names by endpoint). */
  endpoint: MonitorEndpoint;
  call?: string;
  /**
   * The most the matches may measure as the surface renders them (MCP's output budget): fewer are read,
   * and charged, to fit; one match is served whatever its size.
   */
  room?: { size: (match: DeliveredMatch) => number; max: number };
}

export interface DeliveredMatch {
  seq: number;
  tweet: Tweet;
}

export interface MatchesRead {
  matches: DeliveredMatch[];
  /** The cursor to read on from: the last match this read went through (removed posts included). */
  nextSince: number;
  credits: { charged: number; remaining: number };
  /** Why new matches wait, when some do (the daily cap, a key that cannot pay). */
  hold?: MonitorNotice;
}

/** Tries before a read whose charge keeps meeting another reader's gives up with a 503. */
const BUSY_TRIES = 5;
const BUSY_WAIT_MS = 40;

/** 409: a webhook monitor's matches go to its URL, never to a reader. */
export function deliversByWebhook(id: string): ApiError {
  return new ApiError(
    "monitor_delivers_by_webhook",
    `Monitor ${id} delivers its matches by webhook, to its URL: change its delivery to {"type":"pull"} to read them here`,
  );
}

/** The caller's pull monitor, or the 404 (none, or another account's) or 409 (a webhook monitor). */
export async function pullMonitor(monitors: Monitors, accountId: string, id: string): Promise<Monitor> {
  const monitor = await monitors.get(accountId, monitorIdOf(id));
  if (!monitor) throw noSuchMonitor(id);
  if (monitor.delivery.type === "webhook") throw deliversByWebhook(monitor.id);
  return monitor;
}

/**
 * The matches above the request's cursor, new ones charged: a 402 when new matches wait, none can be
 * paid for and nothing paid before is there to read again; a 400 for a cursor past what was paid for.
 */
export async function readMatches(services: MonitorServices, request: MatchesRequest): Promise<MatchesRead> {
  for (let attempt = 1; ; attempt++) {
    const now = Date.now();
    let monitor = await pullMonitor(services.monitors, request.accountId, request.monitorId);
    // A reader is sent a match only once its charge is settled, so its cursor is never past chargedSeq.
    const since = request.since ?? monitor.chargedSeq;
    if (since > monitor.chargedSeq) throw sincePastCharged(monitor.chargedSeq, "since");
    // Nothing above the cursor: the read a waiting stream repeats, kept to reads.
    if (monitor.lastSeq <= since) return { matches: [], nextSince: since, credits: await free(services, monitor) };
    if (monitor.lastSeq > monitor.chargedSeq) {
      // New matches will be charged: a charge a stopped process left is settled first, so that
      // chargedSeq is the ledger's (what it charged is then read again free).
      await settleStaleCharge(services, monitor, now);
      monitor = await pullMonitor(services.monitors, request.accountId, monitor.id);
    }
    const read = await readOnce(services, monitor, since, request, now);
    if (read !== "busy") return read;
    if (attempt === BUSY_TRIES) {
      throw new ApiError("service_unavailable", "Another read of this monitor is being charged: try again", {
        retryAfter: 1,
      });
    }
    await new Promise((resolve) => setTimeout(resolve, BUSY_WAIT_MS * attempt));
  }
}

/**
 * A cursor past what was paid for: every match a reader was sent is paid for, and new ones are paid from
 * charged_through on, so a cursor above it skips matches nobody read.
 */
export function sincePastCharged(chargedSeq: number, parameter: string): ApiError {
  const message = `must be at most ${chargedSeq}, the monitor's charged_through: matches are read in order, new ones from there`;
  return invalidRequest(`Invalid request: ${parameter} ${message}`, [{ parameter, message }]);
}

async function readOnce(
  services: MonitorServices,
  monitor: Monitor,
  since: number,
  request: MatchesRequest,
  now: number,
): Promise<MatchesRead | "busy"> {
  const found = await services.monitors.matches(monitor.id, since, Math.min(request.max, MONITOR_LIMITS.batch));
  const tweets = new Map((await services.store.tweetsByIds(found.map((match) => match.tweetId))).map((t) => [t.id, t]));
  const matches = request.room ? withinRoom(found, tweets, request.room) : found;
  const delivered = (list: readonly MonitorMatch[]) =>
    list.flatMap((match) => {
      const tweet = tweets.get(match.tweetId);
      return tweet ? [{ seq: match.seq, tweet }] : [];
    });
  const paid = matches.filter((match) => match.seq <= monitor.chargedSeq);
  const fresh = matches.filter((match) => match.seq > monitor.chargedSeq);
  const reread = { matches: delivered(paid), nextSince: paid.at(-1)?.seq ?? since };
  if (fresh.length === 0) return { ...reread, credits: await free(services, monitor) };

  const { posts: affordable, hold } = await affordablePosts(services, monitor, fresh, tweets, now);
  const taken = takeAffordable(fresh, tweets, affordable);
  // Nothing taken: the first new post cannot be paid for, and deliverablePosts said why.
  if (taken.length === 0) return refused(services, monitor, reread, hold as MonitorNotice, { kept: false });
  const posts = delivered(taken);
  const throughSeq = taken.at(-1)?.seq ?? since;
  const charge = await chargeDelivery(
    services,
    monitor,
    { throughSeq, posts: posts.length, endpoint: request.endpoint, call: request.call },
    now,
  );
  // chargeDelivery keeps the hold of a refused debit on the monitor itself.
  if (!charge.ok) return "busy" in charge ? "busy" : refused(services, monitor, reread, charge.hold, { kept: true });
  return {
    matches: [...reread.matches, ...posts],
    nextSince: throughSeq,
    credits: { charged: charge.credits, remaining: charge.remaining },
  };
}

/** The first matches, in order, whose posts fit the room (a removed post takes none); at least one. */
function withinRoom(
  matches: readonly MonitorMatch[],
  tweets: ReadonlyMap<string, Tweet>,
  room: NonNullable<MatchesRequest["room"]>,
): MonitorMatch[] {
  const kept: MonitorMatch[] = [];
  let used = 0;
  for (const match of matches) {
    const tweet = tweets.get(match.tweetId);
    const size = tweet ? room.size({ seq: match.seq, tweet }) : 0;
    if (used + size > room.max && kept.some((each) => tweets.has(each.tweetId))) break;
    used += size;
    kept.push(match);
  }
  return kept;
}

/**
 * What the cap, the monitor key's limit and the balance let this read pay for, with the hold that says
 * why when it is nothing; no need to ask when every new match's post is gone.
 */
async function affordablePosts(
  services: MonitorServices,
  monitor: Monitor,
  fresh: readonly MonitorMatch[],
  tweets: ReadonlyMap<string, Tweet>,
  now: number,
): Promise<{ posts: number; hold?: MonitorNotice }> {
  if (!fresh.some((match) => tweets.has(match.tweetId))) return { posts: 0 };
  return deliverablePosts({ ...services, keys: services.accounts }, monitor, now);
}

/**
 * The new matches, in order, up to the last one whose post is paid for: removed posts cost nothing, so
 * they go along wherever they fall before the first post that cannot be paid.
 */
function takeAffordable(
  fresh: readonly MonitorMatch[],
  tweets: ReadonlyMap<string, Tweet>,
  affordable: number,
): MonitorMatch[] {
  const taken: MonitorMatch[] = [];
  let posts = 0;
  for (const match of fresh) {
    const live = tweets.has(match.tweetId);
    if (live && posts === affordable) break;
    if (live) posts++;
    taken.push(match);
  }
  return taken;
}

async function free(services: MonitorServices, monitor: Monitor) {
  return { charged: 0, remaining: await services.ledger.balance(monitor.accountId) };
}

/**
 * New matches wait: the hold is kept on the monitor (its view says why), and the read serves what was
 * paid before; with nothing of that to serve, short credits are the 402 any read gets.
 */
async function refused(
  services: MonitorServices,
  monitor: Monitor,
  reread: Pick<MatchesRead, "matches" | "nextSince">,
  hold: MonitorNotice,
  { kept }: { kept: boolean },
): Promise<MatchesRead> {
  if (!kept && monitor.hold?.reason !== hold.reason) await services.monitors.setHold(monitor.id, hold);
  const credits = await free(services, monitor);
  if (reread.matches.length === 0 && hold.reason === "insufficient_credits") {
    throw creditsShort(monitor, hold, credits.remaining);
  }
  return { ...reread, credits, hold };
}

function creditsShort(monitor: Monitor, hold: MonitorNotice, balance: number): ApiError {
  if (balance < CREDITS_PER_DELIVERED_POST) {
    return insufficientCredits(
      CREDITS_PER_DELIVERED_POST,
      { ok: false, reason: "balance", remaining: balance },
      monitor.keyId,
    );
  }
  // The balance covers a post, so the key that created the monitor refused it (its own limit).
  return new ApiError("insufficient_credits", hold.message, { keyId: monitor.keyId });
}
