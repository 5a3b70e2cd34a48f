// A monitor as its owner sees it (GET /v1/monitors, MCP list_monitors, the dashboard): snake_case like the
// rest of /v1, times as ISO 8601 strings. Every surface renders a monitor with monitorView.
import * as v from "valibot";
import { utcDayOf } from "../billing/key-spend.ts";
import { Tweet } from "../model.ts";
import type { Monitor, MonitorHoldReason, MonitorNotice, WebhookFailure } from "./model.ts";
import type { MatchesRead } from "./read-matches.ts";

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
const Instant = v.pipe(v.string(), v.isoTimestamp(), v.description("UTC, ISO 8601"));

const HOLD_REASONS = {
  insufficient_credits: true,
  daily_cap: true,
  webhook_failing: true,
  key_unusable: true,
} satisfies Record<MonitorHoldReason, true>;

export const MonitorNoticeData = v.strictObject({
  reason: v.picklist(Object.keys(HOLD_REASONS) as MonitorHoldReason[]),
  message: v.string(),
  since: Instant,
});

export const MonitorData = v.strictObject({
  id: v.string(),
  name: v.nullable(v.string()),
  query: v.string(),
  delivery: v.variant("type", [
    v.strictObject({ type: v.literal("webhook"), url: v.string() }),
    v.strictObject({ type: v.literal("pull") }),
  ]),
  daily_credit_cap: v.pipe(v.nullable(Count), v.description("Credits it may spend per UTC day; null: no cap")),
  status: v.picklist(["active", "paused"]),
  paused_reason: v.pipe(v.nullable(MonitorNoticeData), v.description("Why we paused it, when we did")),
  hold: v.pipe(v.nullable(MonitorNoticeData), v.description("Why its deliveries wait while matching goes on")),
  webhook_failure: v.pipe(
    v.nullable(v.strictObject({ since: Instant, attempts: Count, last_error: v.string(), next_attempt_at: Instant })),
    v.description("The failing run of its webhook's deliveries, while one lasts"),
  ),
  matches: v.pipe(Count, v.description("Matches recorded: the newest one's seq (matches are numbered 1, 2, …)")),
  charged_through: v.pipe(Count, v.description("The newest match paid for: matches up to it are read again free")),
  spent_today: v.pipe(Count, v.description("Credits its deliveries spent this UTC day")),
  created_at: Instant,
  updated_at: Instant,
  secret: v.pipe(
    v.exactOptional(v.string()),
    v.description("Signs its webhook deliveries (Social-Signature); webhook monitors only"),
  ),
});

export type MonitorView = v.InferOutput<typeof MonitorData>;
export type MonitorNoticeView = v.InferOutput<typeof MonitorNoticeData>;

const iso = (ms: number) => new Date(ms).toISOString();

export function noticeView(notice: MonitorNotice | undefined): MonitorNoticeView | null {
  return notice ? { reason: notice.reason, message: notice.message, since: iso(notice.since) } : null;
}

function failureView(failure: WebhookFailure | undefined): MonitorView["webhook_failure"] {
  if (!failure) return null;
  const { since, attempts, lastError, nextAttemptAt } = failure;
  return { since: iso(since), attempts, last_error: lastError, next_attempt_at: iso(nextAttemptAt) };
}

/**
 * The monitor at `now` (what it spent today). `secret` is left out where its reader is not to sign
 * anything with it (an agent's list), and is never shown for a pull monitor, which has nothing to sign.
 */
export function monitorView(
  monitor: Monitor,
  now: number,
  options: { secret: boolean } = { secret: true },
): MonitorView {
  const showSecret = options.secret && monitor.delivery.type === "webhook";
  return {
    id: monitor.id,
    name: monitor.name ?? null,
    query: monitor.query,
    delivery: monitor.delivery.type === "webhook" ? { type: "webhook", url: monitor.delivery.url } : { type: "pull" },
    daily_credit_cap: monitor.dailyCreditCap ?? null,
    status: monitor.status,
    paused_reason: noticeView(monitor.pausedReason),
    hold: noticeView(monitor.hold),
    webhook_failure: failureView(monitor.failure),
    matches: monitor.lastSeq,
    charged_through: monitor.chargedSeq,
    spent_today: monitor.spentDay === utcDayOf(now) ? monitor.spentOnDay : 0,
    created_at: iso(monitor.createdAt),
    updated_at: iso(monitor.updatedAt),
    ...(showSecret ? { secret: monitor.secret } : {}),
  };
}

/** What a poll (and the MCP tool) answers: the matches, each with its seq, and the cursor to go on from. */
export const MatchesData = v.strictObject({
  matches: v.array(v.strictObject({ seq: Count, tweet: Tweet })),
  next_since: v.pipe(Count, v.description("Pass it as since to read on; matches up to it are read again free")),
  hold: v.pipe(v.nullable(MonitorNoticeData), v.description("Why new matches wait, when some do")),
});

export function matchesView(read: MatchesRead): v.InferOutput<typeof MatchesData> {
  return { matches: read.matches, next_since: read.nextSince, hold: noticeView(read.hold) };
}
