// How every adapter stores a monitor (core's monitors/model.ts): its row's columns, the row read back as
// a Monitor, the columns a new monitor and a change write, and the posts of an import batch that wait
// to be matched. The adapters keep only their SQL.
import type {
  Arrival,
  MatchFound,
  Monitor,
  MonitorChanges,
  MonitorCharge,
  MonitorHoldReason,
  MonitorNotice,
  NewMonitor,
} from "@social/core";
import type { ImportPlan } from "./import-plan.ts";

/** The columns of monitors a Monitor is read from (both adapters' SQL). */
export const MONITOR_COLUMNS =
  "id, account_id, key_id, name, query, delivery_type, webhook_url, daily_credit_cap, status, " +
  "paused_reason, paused_message, paused_since, hold_reason, hold_message, hold_since, " +
  "failure_since, failure_attempts, failure_error, next_attempt_at, secret, created_at, updated_at, " +
  "last_seq, charged_seq, batch_through_seq, spent_day, spent_on_day";

/**
 * The condition of a webhook monitor whose delivery is due: active, with matches not paid for or a
 * charge to settle. Both adapters' claim and their partial index on the due time name it alike, so the
 * index serves the claim.
 */
export const WEBHOOK_WORK =
  "status = 'active' AND delivery_type = 'webhook' AND (last_seq > charged_seq OR charge_request_id IS NOT NULL)";

/**
 * The matches one transaction removes of a monitor being removed: a monitor gathers matches without end,
 * and removing them all at once would hold the write lock (on SQLite, the event loop too) for as long.
 */
export const MATCHES_REMOVED_AT_ONCE = 10_000;

/** The columns a pending charge intent (core's MonitorCharge) is read from, named as its fields. */
export const PENDING_CHARGE_COLUMNS =
  'charge_request_id AS "requestId", charge_after_seq AS "afterSeq", charge_through_seq AS "throughSeq", ' +
  "charge_credits AS credits, charge_day AS day, charge_at AS at";

/** A pending charge intent as PENDING_CHARGE_COLUMNS reads it; `Int` is how the database hands out a BIGINT. */
export interface PendingChargeRowOf<Int> {
  requestId: string;
  afterSeq: Int;
  throughSeq: Int;
  credits: Int;
  day: Int;
  at: Int;
}

export function pendingChargeOf(row: PendingChargeRowOf<number | string>): MonitorCharge {
  return {
    requestId: row.requestId,
    afterSeq: Number(row.afterSeq),
    throughSeq: Number(row.throughSeq),
    credits: Number(row.credits),
    day: Number(row.day),
    at: Number(row.at),
  };
}

/** A monitor's row; `Int` is how the database hands out a BIGINT. */
export interface MonitorRowOf<Int> {
  id: string;
  account_id: string;
  key_id: string;
  name: string | null;
  query: string;
  delivery_type: string;
  webhook_url: string | null;
  daily_credit_cap: Int | null;
  status: string;
  paused_reason: string | null;
  paused_message: string | null;
  paused_since: Int | null;
  hold_reason: string | null;
  hold_message: string | null;
  hold_since: Int | null;
  failure_since: Int | null;
  failure_attempts: Int | null;
  failure_error: string | null;
  next_attempt_at: Int;
  secret: string;
  created_at: Int;
  updated_at: Int;
  last_seq: Int;
  charged_seq: Int;
  batch_through_seq: Int;
  spent_day: Int;
  spent_on_day: Int;
}

type Value = string | number | null;

function noticeOf(reason: string | null, message: string | null, since: number | string | null) {
  if (reason === null || message === null || since === null) return undefined;
  return { reason: reason as MonitorHoldReason, message, since: Number(since) };
}

export function monitorOf(row: MonitorRowOf<number | string>): Monitor {
  const pausedReason = noticeOf(row.paused_reason, row.paused_message, row.paused_since);
  const hold = noticeOf(row.hold_reason, row.hold_message, row.hold_since);
  const failing = row.failure_since !== null && row.failure_attempts !== null && row.failure_error !== null;
  return {
    id: row.id,
    accountId: row.account_id,
    keyId: row.key_id,
    ...(row.name === null ? {} : { name: row.name }),
    query: row.query,
    delivery:
      row.delivery_type === "webhook" && row.webhook_url !== null
        ? { type: "webhook", url: row.webhook_url }
        : { type: "pull" },
    ...(row.daily_credit_cap === null ? {} : { dailyCreditCap: Number(row.daily_credit_cap) }),
    status: row.status === "paused" ? "paused" : "active",
    ...(pausedReason ? { pausedReason } : {}),
    ...(hold ? { hold } : {}),
    ...(failing
      ? {
          failure: {
            since: Number(row.failure_since),
            attempts: Number(row.failure_attempts),
            lastError: row.failure_error as string,
            nextAttemptAt: Number(row.next_attempt_at),
          },
        }
      : {}),
    secret: row.secret,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    lastSeq: Number(row.last_seq),
    chargedSeq: Number(row.charged_seq),
    batchThroughSeq: Number(row.batch_through_seq),
    spentDay: Number(row.spent_day),
    spentOnDay: Number(row.spent_on_day),
  };
}

function deliveryColumns(delivery: NewMonitor["delivery"]): Record<string, Value> {
  return { delivery_type: delivery.type, webhook_url: delivery.type === "webhook" ? delivery.url : null };
}

/** The columns a new monitor is inserted with; the rest take their defaults (active, nothing matched). */
export function newMonitorColumns(monitor: NewMonitor): Record<string, Value> {
  return {
    id: monitor.id,
    account_id: monitor.accountId,
    key_id: monitor.keyId,
    name: monitor.name ?? null,
    query: monitor.query,
    ...deliveryColumns(monitor.delivery),
    daily_credit_cap: monitor.dailyCreditCap ?? null,
    status: "active",
    secret: monitor.secret,
    created_at: monitor.now,
    updated_at: monitor.now,
  };
}

/** The notice columns of `prefix` (paused, hold) holding `notice`, or cleared. */
export function noticeColumns(prefix: "paused" | "hold", notice: MonitorNotice | undefined): Record<string, Value> {
  return {
    [`${prefix}_reason`]: notice?.reason ?? null,
    [`${prefix}_message`]: notice?.message ?? null,
    [`${prefix}_since`]: notice?.since ?? null,
  };
}

/** A new start for deliveries: no hold and no failing run, the next delivery due at once. */
const FRESH_DELIVERY: Record<string, Value> = {
  ...noticeColumns("hold", undefined),
  failure_since: null,
  failure_attempts: null,
  failure_error: null,
  next_attempt_at: 0,
};

/**
 * The columns `changes` writes, `updated_at` among them. Back to active clears why we paused it; that and
 * a new delivery (a webhook's URL fixed, or pull instead) clear the hold and the failing run, whose
 * retries and window were the old delivery's, and make the next delivery due at once.
 */
export function monitorChangeColumns(changes: MonitorChanges, now: number): Record<string, Value> {
  const columns: Record<string, Value> = { updated_at: now };
  if (changes.name !== undefined) columns.name = changes.name;
  if (changes.query !== undefined) columns.query = changes.query;
  if (changes.delivery !== undefined) Object.assign(columns, deliveryColumns(changes.delivery), FRESH_DELIVERY);
  if (changes.dailyCreditCap !== undefined) columns.daily_credit_cap = changes.dailyCreditCap;
  if (changes.status !== undefined) columns.status = changes.status;
  if (changes.status === "active") Object.assign(columns, noticeColumns("paused", undefined), FRESH_DELIVERY);
  return columns;
}

/** Whether `changes` may change the set of active queries the matcher indexes. */
export function changesActiveQueries(changes: MonitorChanges): boolean {
  return changes.query !== undefined || changes.status !== undefined;
}

/** The posts an import batch adds (not a replaced or kept copy), each once, in the batch's order. */
export function arrivedTweetIds(plan: ImportPlan): string[] {
  return [...new Set(plan.tweets.flatMap(({ tweet, added }) => (added ? [tweet.id] : [])))];
}

/**
 * The matches of each monitor, its posts in the order they arrived (a post that is not among `arrivals`
 * after those that are), each once: the order their seqs are given in.
 */
export function matchesByMonitor(arrivals: readonly Arrival[], matches: readonly MatchFound[]): Map<string, string[]> {
  const arrivedAt = new Map(arrivals.map((arrival) => [arrival.tweetId, arrival.seq]));
  const position = (tweetId: string) => arrivedAt.get(tweetId) ?? Number.POSITIVE_INFINITY;
  const byMonitor = new Map<string, Set<string>>();
  for (const { monitorId, tweetId } of matches) {
    const tweets = byMonitor.get(monitorId) ?? new Set<string>();
    byMonitor.set(monitorId, tweets.add(tweetId));
  }
  return new Map(
    [...byMonitor].map(([monitorId, tweets]) => [monitorId, [...tweets].sort((a, b) => position(a) - position(b))]),
  );
}
