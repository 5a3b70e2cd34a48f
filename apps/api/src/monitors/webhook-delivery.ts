// One claimed monitor's webhook delivery: the next batch of its matches above chargedSeq, as many as its
// cap, its key and the balance pay for, recorded, signed and POSTed; charged once the receiver answers
// 2xx, and retried later as the same batch (or the monitor paused) when it does not. The attempt's outcome is what finishWebhook
// records; the lease the claim took is given back with it.
import {
  chargeDelivery,
  chargeOwed,
  DELIVERY_HEADER,
  deliverablePosts,
  failedAttempt,
  MONITOR_LIMITS,
  type Monitor,
  type MonitorBilling,
  type MonitorEndpoint,
  type MonitorNotice,
  SIGNATURE_HEADER,
  STALE_CHARGE_MS,
  type Store,
  settleStaleCharge,
  signWebhook,
  type Tweet,
  type WebhookAttempt,
  webhookFailingHold,
} from "@social/core";
import { sendWebhook, type WebhookPost } from "./webhook-send.ts";

/** The usage rows' endpoint of a webhook delivery (the request log and usage show it). */
export const WEBHOOK_ENDPOINT: MonitorEndpoint = "monitors.webhook";
/** When a monitor that waits on something else (credits, which may arrive at any time) is looked at again. */
const RECHECK_MS = 60_000;
/** When a key that cannot pay is looked at again: only recreating the monitor lifts that hold. */
const KEY_RECHECK_MS = 60 * 60_000;
const DAY_MS = 86_400_000;

export interface DeliveryDeps {
  billing: MonitorBilling;
  store: Pick<Store, "tweetsByIds">;
  allowPrivate: boolean;
  retryBaseMs: number;
  clock: () => number;
  /** The owner of this process's leases: a batch is recorded under the lease that sends it. */
  owner: string;
  /** Aborted when the process stops: a POST in flight is given up, and the monitor left due. */
  stopping: AbortSignal;
}

/** What a receiver is sent: the batch's matches that still exist, in match order. */
export interface WebhookPayload {
  monitor_id: string;
  delivery_id: string;
  cursor: number;
  tweets: Tweet[];
}

/** The same id on every retry of one batch, so a receiver can tell a retry from a new batch. */
export function deliveryIdOf(monitorId: string, fromSeq: number, throughSeq: number): string {
  return `dlv_${monitorId}_${fromSeq}_${throughSeq}`;
}

function retryAfterHold(hold: MonitorNotice, now: number): number {
  if (hold.reason === "daily_cap") return (Math.floor(now / DAY_MS) + 1) * DAY_MS;
  if (hold.reason === "key_unusable") return now + KEY_RECHECK_MS;
  return now + RECHECK_MS;
}

async function held(deps: DeliveryDeps, monitor: Monitor, hold: MonitorNotice, now: number): Promise<WebhookAttempt> {
  // The hold's `since` is when it began: the same hold found again is left as it is.
  if (monitor.hold?.reason !== hold.reason) await deps.billing.monitors.setHold(monitor.id, hold);
  return { outcome: "waiting", nextAttemptAt: retryAfterHold(hold, now) };
}

/** A failed POST: retried later, its monitor held meanwhile, or paused once the retry window is over. */
async function failed(deps: DeliveryDeps, monitor: Monitor, error: string, now: number): Promise<WebhookAttempt> {
  const attempt = failedAttempt(monitor.failure, error, now, deps.retryBaseMs);
  if (!attempt.pause && monitor.hold?.reason !== "webhook_failing") {
    await deps.billing.monitors.setHold(monitor.id, webhookFailingHold(monitor.failure?.since ?? now));
  }
  return attempt;
}

/**
 * The batch's tweets in match order: the batch sent before and not paid for, when there is one (cut only
 * when less can be paid for now), else the next matches. Matched posts removed since are left out (and
 * not charged), and so are matches the retention purged (MONITOR_MATCH_DAYS): a batch they emptied, or
 * new matches all purged, still go through, so that chargedSeq moves past them for nothing.
 */
async function batchOf(deps: DeliveryDeps, monitor: Monitor, posts: number) {
  const unpaid = monitor.batchThroughSeq - monitor.chargedSeq;
  const size = unpaid > 0 ? unpaid : MONITOR_LIMITS.batch;
  const read = await deps.billing.monitors.matches(monitor.id, monitor.chargedSeq, Math.min(size, posts));
  // Purged seqs leave gaps: a read of `unpaid` matches may reach past the recorded batch.
  const matches = unpaid > 0 ? read.filter((match) => match.seq <= monitor.batchThroughSeq) : read;
  const found = new Map((await deps.store.tweetsByIds(matches.map((match) => match.tweetId))).map((t) => [t.id, t]));
  const tweets = matches.flatMap((match) => found.get(match.tweetId) ?? []);
  return { throughSeq: matches.at(-1)?.seq ?? purgedThrough(monitor, unpaid), tweets };
}

/** Where chargedSeq moves when nothing is left to read above it: the recorded batch's end, or lastSeq. */
function purgedThrough(monitor: Monitor, unpaid: number): number | undefined {
  if (unpaid > 0) return monitor.batchThroughSeq;
  return monitor.lastSeq > monitor.chargedSeq ? monitor.lastSeq : undefined;
}

async function signedPost(monitor: Monitor, url: string, payload: WebhookPayload, now: number): Promise<WebhookPost> {
  const body = JSON.stringify(payload);
  return {
    url,
    body,
    headers: {
      "content-type": "application/json",
      "user-agent": "SocialDataAPI-Webhooks/1",
      [SIGNATURE_HEADER]: await signWebhook(monitor.secret, body, now / 1000),
      [DELIVERY_HEADER]: payload.delivery_id,
    },
  };
}

/** The usage row's call of a delivery to `url`: the receiver's host, never its path or query. */
function callOf(url: string): string {
  return `POST ${new URL(url).host}`;
}

/**
 * A batch an earlier attempt delivered whose charge is still pending (a webhook's charge begins only
 * once its receiver answered 2xx): its debit was refused, or its process stopped before settling it. It
 * is charged now, and never sent again. Undefined when nothing is owed (any longer); else the attempt
 * that waits for what lets it be paid.
 */
async function chargeOwedBatch(deps: DeliveryDeps, claimed: Monitor, now: number): Promise<WebhookAttempt | undefined> {
  if (claimed.delivery.type !== "webhook") return undefined;
  const owed = await deps.billing.monitors.pendingCharge(claimed.id);
  // One written before the monitor's last change may be a read's, from before its delivery changed: a
  // read is charged before it serves, so the ledger settles that one (settleStaleCharge).
  if (owed === undefined || owed.at < claimed.updatedAt) return undefined;
  const usage = { endpoint: WEBHOOK_ENDPOINT, call: callOf(claimed.delivery.url) };
  const charged = await chargeOwed(deps.billing, claimed, owed, usage, deps.clock());
  if (charged.ok) return undefined;
  return {
    outcome: "waiting",
    nextAttemptAt: "busy" in charged ? now + STALE_CHARGE_MS : retryAfterHold(charged.hold, now),
  };
}

/** One attempt at the monitor's next batch; a failure of ours (the database) rejects. */
export async function attemptDelivery(deps: DeliveryDeps, claimed: Monitor): Promise<WebhookAttempt> {
  const { billing } = deps;
  const now = deps.clock();
  const owing = await chargeOwedBatch(deps, claimed, now);
  if (owing) return owing;
  await settleStaleCharge(billing, claimed, now);
  // Read again: settling may have moved chargedSeq, and the customer may have changed the monitor.
  const monitor = await billing.monitors.get(claimed.accountId, claimed.id);
  if (monitor?.status !== "active" || monitor.delivery.type !== "webhook") {
    return { outcome: "waiting", nextAttemptAt: now + RECHECK_MS };
  }
  const url = monitor.delivery.url;
  const deliverable = await deliverablePosts(billing, monitor, now);
  if (deliverable.hold) return held(deps, monitor, deliverable.hold, now);
  const { throughSeq, tweets } = await batchOf(deps, monitor, deliverable.posts);
  // Due when claimed, nothing above chargedSeq now (lastSeq included): another charge moved it meanwhile.
  if (throughSeq === undefined) return { outcome: "waiting", nextAttemptAt: now + STALE_CHARGE_MS };
  if (tweets.length > 0) {
    // Recorded before it goes out, so that a retry after a failure, a timeout or a crash is this batch,
    // under this delivery id, however many matches arrive meanwhile.
    if (throughSeq !== monitor.batchThroughSeq) await billing.monitors.recordBatch(monitor.id, deps.owner, throughSeq);
    const payload = {
      monitor_id: monitor.id,
      delivery_id: deliveryIdOf(monitor.id, monitor.chargedSeq + 1, throughSeq),
      cursor: throughSeq,
      tweets,
    };
    const sent = await sendWebhook(await signedPost(monitor, url, payload, now), deps);
    if ("stopped" in sent) return { outcome: "waiting", nextAttemptAt: now };
    if (!sent.ok) return failed(deps, monitor, sent.error, now);
  }
  // A batch whose posts were all removed is charged nothing and only moves chargedSeq past them.
  const charge = { throughSeq, posts: tweets.length, endpoint: WEBHOOK_ENDPOINT, call: callOf(url), delivered: true };
  const charged = await chargeDelivery(billing, monitor, charge, deps.clock());
  if (charged.ok) return { outcome: "delivered" };
  if ("busy" in charged) return { outcome: "waiting", nextAttemptAt: now + STALE_CHARGE_MS };
  return { outcome: "waiting", nextAttemptAt: retryAfterHold(charged.hold, now) };
}
