// A monitor: a saved search query of an account, matched against each post that arrives and delivered to
// the account (docs/monitors.md). The rules every surface and adapter share live here.
import { randomBase62 } from "../credentials.ts";

export const MONITOR_LIMITS = {
  /** Monitors one account may hold. */
  perAccount: 100,
  /** Characters of a monitor's name. */
  nameLength: 100,
  /** Matches one webhook delivery, one stream event batch or one poll carries at most. */
  batch: 100,
  /** How long a failing webhook is retried before the monitor is paused. */
  retryWindowMs: 24 * 60 * 60 * 1000,
} as const;

/** What a delivered post costs: search's price per item. */
export const CREDITS_PER_DELIVERED_POST = 1;

/** Webhook: we POST each batch to `url`. Pull: the account reads by stream, poll or MCP. */
export type MonitorDelivery = { type: "webhook"; url: string } | { type: "pull" };

/** Paused: by the customer, or by us after a webhook failed for MONITOR_LIMITS.retryWindowMs. */
export type MonitorStatus = "active" | "paused";

/**
 * Why deliveries of an active monitor wait while its matching goes on: each lifts by itself (credits
 * arrive, the next UTC day, a retry succeeds) except `key_unusable`, which needs the monitor moved to a
 * working key by recreating it.
 */
export type MonitorHoldReason = "insufficient_credits" | "daily_cap" | "webhook_failing" | "key_unusable";

export interface MonitorNotice {
  reason: MonitorHoldReason;
  message: string;
  /** Epoch ms. */
  since: number;
}

/** A webhook's failing run: what the next attempt retries. */
export interface WebhookFailure {
  /** Epoch ms of the first failed attempt of the delivery that keeps failing. */
  since: number;
  attempts: number;
  lastError: string;
  /** Epoch ms. */
  nextAttemptAt: number;
}

export interface Monitor {
  id: string;
  accountId: string;
  /** The key that created it: its deliveries are that key's charges (usage, key limit). */
  keyId: string;
  name?: string;
  query: string;
  delivery: MonitorDelivery;
  /** Credits its deliveries may spend per UTC day; absent for no cap. */
  dailyCreditCap?: number;
  status: MonitorStatus;
  /** Why we paused it, when we did; cleared when the customer makes it active again. */
  pausedReason?: MonitorNotice;
  /** Why its deliveries wait, while they do. */
  hold?: MonitorNotice;
  failure?: WebhookFailure;
  /** Signs its webhook deliveries (HMAC-SHA256). */
  secret: string;
  /** Epoch ms. */
  createdAt: number;
  updatedAt: number;
  /** Its newest match's sequence number (matches are numbered 1, 2, … per monitor); 0 before any. */
  lastSeq: number;
  /** The newest match paid for: matches up to it are delivered again free. */
  chargedSeq: number;
  /**
   * The last match of the webhook batch sent and not paid for yet (none when not above chargedSeq): its
   * retries send those matches again, under the same delivery id, however many arrive meanwhile.
   */
  batchThroughSeq: number;
  /** Credits charged on `spentDay` (days since the epoch, UTC), for the daily cap. */
  spentDay: number;
  spentOnDay: number;
}

export function newMonitorId(): string {
  return `mon_${randomHex(16)}`;
}

export function newMonitorSecret(): string {
  return `whsec_${randomBase62(32)}`;
}

function randomHex(length: number): string {
  let out = "";
  for (const byte of crypto.getRandomValues(new Uint8Array(length / 2))) out += byte.toString(16).padStart(2, "0");
  return out;
}
