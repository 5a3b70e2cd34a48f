// Paying for a monitor's deliveries, whichever way they go out (webhook, stream, poll, MCP): how many new
// posts a delivery may carry, and the charge itself, made once per match through the Ledger with an
// intent on the monitor written first (see MonitorCharge in ../ports/monitors.ts).
import { utcDayOf } from "../billing/key-spend.ts";
import { LedgerError } from "../ledger-errors.ts";
import type { Accounts } from "../ports/accounts.ts";
import type { DebitResult, Ledger } from "../ports/ledger.ts";
import type { MonitorCharge, Monitors } from "../ports/monitors.ts";
import { type MonitorEndpoint, monitorChargeId } from "./endpoints.ts";
import { CREDITS_PER_DELIVERED_POST, type Monitor, type MonitorNotice } from "./model.ts";

/** An intent older than this was left by a process that stopped: no charge takes that long. */
export const STALE_CHARGE_MS = 60_000;

export interface MonitorBilling {
  ledger: Ledger;
  monitors: Monitors;
  /**
   * The keys, for a delivery that goes out before it is charged (a webhook): its key is checked first,
   * so that a key that cannot pay holds the delivery instead of having it sent and then not charged.
   */
  keys?: Pick<Accounts, "key">;
}

export interface DeliveryCharge {
  /** The newest match the delivery carries. */
  throughSeq: number;
  /** Posts it carries above the monitor's chargedSeq (matched posts removed since are not sent). */
  posts: number;
  /** The usage row's endpoint and call (what the request log shows; an MCP read has none, as every MCP read). */
  endpoint: MonitorEndpoint;
  call?: string;
  /**
   * The posts went out before the charge (a webhook's batch its receiver answered 2xx): a refused debit
   * leaves the intent pending, owed, for chargeOwed to make again, so that the batch is never sent again.
   * Otherwise (a read, which serves only what was paid for) a refused debit clears it.
   */
  delivered?: boolean;
}

export type ChargeResult =
  | { ok: true; credits: number; remaining: number }
  /** Not charged: the hold now set on the monitor says why. */
  | { ok: false; hold: MonitorNotice }
  /** Not charged: another delivery of the same matches is being charged; try again later. */
  | { ok: false; busy: true };

/** Credits the monitor's deliveries were charged today (UTC). */
export function spentToday(monitor: Monitor, now: number): number {
  return monitor.spentDay === utcDayOf(now) ? monitor.spentOnDay : 0;
}

/** Credits the monitor may still spend today under its daily cap; Infinity without one. */
export function capLeft(monitor: Monitor, now: number): number {
  if (monitor.dailyCreditCap === undefined) return Number.POSITIVE_INFINITY;
  return Math.max(0, monitor.dailyCreditCap - spentToday(monitor, now));
}

/**
 * How many posts above chargedSeq the next delivery may carry: what the daily cap and the balance allow;
 * 0 with the hold that says why. A stale intent is settled first, so chargedSeq is current.
 */
export async function deliverablePosts(
  billing: MonitorBilling,
  monitor: Monitor,
  now: number,
): Promise<{ posts: number; hold?: MonitorNotice }> {
  const left = capLeft(monitor, now);
  if (left < CREDITS_PER_DELIVERED_POST) {
    return {
      posts: 0,
      hold: notice("daily_cap", "The monitor's daily credit cap is reached; deliveries resume at 00:00 UTC.", now),
    };
  }
  const key = billing.keys ? await keyAllows(billing.keys, monitor, now) : { credits: Number.POSITIVE_INFINITY };
  if ("hold" in key) return { posts: 0, hold: key.hold };
  if (key.credits < CREDITS_PER_DELIVERED_POST) return { posts: 0, hold: keyLimitReached(now) };
  const balance = await billing.ledger.balance(monitor.accountId);
  const posts = Math.floor(Math.min(left, key.credits, balance) / CREDITS_PER_DELIVERED_POST);
  if (posts === 0) return { posts, hold: insufficientCredits(now) };
  return { posts };
}

/** What the monitor's key may still spend, or the hold of a key that cannot pay at all. */
async function keyAllows(
  keys: Pick<Accounts, "key">,
  monitor: Monitor,
  now: number,
): Promise<{ credits: number } | { hold: MonitorNotice }> {
  const key = await keys.key(monitor.keyId);
  if (!key) return { hold: keyUnusable("unknown_key", now) };
  if (key.revokedAt !== null) return { hold: keyUnusable("revoked_key", now) };
  if (key.expiresAt !== null && key.expiresAt <= now) return { hold: keyUnusable("expired_key", now) };
  return { credits: key.allowance?.remaining ?? Number.POSITIVE_INFINITY };
}

/** Settles what a stopped process left, so that the monitor's chargedSeq is the ledger's. */
export function settleStaleCharge(billing: MonitorBilling, monitor: Monitor, now: number): Promise<void> {
  return billing.monitors.resolveStaleCharge(monitor.id, now - STALE_CHARGE_MS);
}

/**
 * Charges `delivery.posts` credits for the monitor's matches up to `delivery.throughSeq` and moves its
 * chargedSeq there, or sets the hold that says why not. A failure of ours (the database) rejects and
 * leaves the intent, which settleStaleCharge resolves later.
 */
export async function chargeDelivery(
  billing: MonitorBilling,
  monitor: Monitor,
  delivery: DeliveryCharge,
  now: number,
): Promise<ChargeResult> {
  const credits = delivery.posts * CREDITS_PER_DELIVERED_POST;
  const requestId = monitorChargeId(monitor.id, monitor.chargedSeq + 1, delivery.throughSeq);
  const charge = {
    requestId,
    afterSeq: monitor.chargedSeq,
    throughSeq: delivery.throughSeq,
    credits,
    day: utcDayOf(now),
    at: now,
  };
  if (!(await billing.monitors.beginCharge(monitor.id, charge))) return { ok: false, busy: true };
  return debitCharge(billing, monitor, charge, delivery, now);
}

/**
 * The charge of posts delivered before it (see DeliveryCharge.delivered) that is still pending, its debit
 * refused or its process stopped before settling it: the same debit (the same request id) again.
 */
export function chargeOwed(
  billing: MonitorBilling,
  monitor: Monitor,
  owed: MonitorCharge,
  usage: Pick<DeliveryCharge, "endpoint" | "call">,
  now: number,
): Promise<ChargeResult> {
  return debitCharge(billing, monitor, owed, { ...usage, delivered: true }, now);
}

/** The ledger's debit of the intent `charge`, settled when made; the hold that says why when refused. */
async function debitCharge(
  billing: MonitorBilling,
  monitor: Monitor,
  charge: MonitorCharge,
  delivery: Pick<DeliveryCharge, "endpoint" | "call" | "delivered">,
  now: number,
): Promise<ChargeResult> {
  const { requestId, credits } = charge;
  let result: DebitResult;
  try {
    result = await billing.ledger.debit(monitor.accountId, {
      requestId,
      keyId: monitor.keyId,
      endpoint: delivery.endpoint,
      credits,
      call: delivery.call,
    });
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error;
    if (error.code !== "duplicate_request")
      return refused(billing, monitor, charge, delivery, keyUnusable(error.code, now));
    // Made already, by a process that stopped before settling it.
    result = { ok: true, remaining: await billing.ledger.balance(monitor.accountId) };
  }
  if (!result.ok) {
    const hold = result.reason === "key_limit" ? keyLimitReached(now) : insufficientCredits(now);
    return refused(billing, monitor, charge, delivery, hold);
  }
  await billing.monitors.settleCharge(monitor.id, requestId, true);
  if (monitor.hold) await billing.monitors.setHold(monitor.id, undefined);
  return { ok: true, credits, remaining: result.remaining };
}

/** A refused debit: the intent of posts not served yet goes, that of posts delivered stays owed. */
async function refused(
  billing: MonitorBilling,
  monitor: Monitor,
  charge: MonitorCharge,
  delivery: Pick<DeliveryCharge, "delivered">,
  hold: MonitorNotice,
): Promise<ChargeResult> {
  if (delivery.delivered !== true) await billing.monitors.settleCharge(monitor.id, charge.requestId, false);
  await billing.monitors.setHold(monitor.id, hold);
  return { ok: false, hold };
}

function keyUnusable(code: string, now: number): MonitorNotice {
  return notice(
    "key_unusable",
    `The key that created the monitor cannot pay (${code}); create the monitor again with a working key.`,
    now,
  );
}

function keyLimitReached(now: number): MonitorNotice {
  return notice(
    "insufficient_credits",
    "The key that created the monitor has reached its credit limit; raise it on the key's page.",
    now,
  );
}

function insufficientCredits(now: number): MonitorNotice {
  return notice(
    "insufficient_credits",
    "The account's balance cannot pay for a delivered post; deliveries resume when credits arrive.",
    now,
  );
}

function notice(reason: MonitorNotice["reason"], message: string, since: number): MonitorNotice {
  return { reason, message, since };
}
