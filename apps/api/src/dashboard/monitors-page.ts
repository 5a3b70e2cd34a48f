// The account's monitors: a list with where each stands (delivering, held and why, paused and why, a
// failing webhook's attempts), and a page per monitor with its figures and the form that pauses or
// resumes it. Monitors are made and changed through the API (docs/webhooks.md); the dashboard shows
// them and stops or restarts their deliveries.
import { type Monitor, type MonitorNotice, spentToday } from "@social/core";
import { plural, scrollable, toMinute } from "./format.ts";
import { csrfField, type Html, html, layout, type Viewer } from "./html.ts";

export function monitorPagePath(id: string): string {
  return `/dashboard/monitors/${encodeURIComponent(id)}`;
}

const REASONS: Readonly<Record<MonitorNotice["reason"], string>> = {
  insufficient_credits: "not enough credits",
  daily_cap: "daily credit cap reached",
  webhook_failing: "webhook failing",
  key_unusable: "key cannot pay",
};

function deliveryText(monitor: Monitor): string {
  return monitor.delivery.type === "webhook" ? `webhook ${monitor.delivery.url}` : "pull (stream, poll, MCP)";
}

/** One line: active, held (why), or paused (by whom). */
function statusText(monitor: Monitor): string {
  if (monitor.status === "paused") {
    return monitor.pausedReason ? `paused: ${REASONS[monitor.pausedReason.reason]}` : "paused by you";
  }
  return monitor.hold ? `held: ${REASONS[monitor.hold.reason]}` : "active";
}

/** What the customer should read about the monitor's state: the pause's or the hold's message. */
function noticeOf(monitor: Monitor): MonitorNotice | undefined {
  return monitor.status === "paused" ? monitor.pausedReason : monitor.hold;
}

function spentText(monitor: Monitor, now: number): string {
  const cap = monitor.dailyCreditCap;
  if (cap === undefined) return `${plural(spentToday(monitor, now), "credit")} (no cap)`;
  return `${spentToday(monitor, now).toLocaleString("en-US")} of ${plural(cap, "credit")}`;
}

function failureText(monitor: Monitor): Html | "" {
  const failure = monitor.failure;
  if (!failure) return "";
  return html`failing since ${toMinute(failure.since)}, ${plural(failure.attempts, "attempt")}, next ${toMinute(failure.nextAttemptAt)}: ${failure.lastError}`;
}

export function monitorsPage(view: { viewer: Viewer; monitors: readonly Monitor[]; now: number }): Html {
  const rows = view.monitors.map((monitor) => {
    const notice = noticeOf(monitor);
    return html`<tr><th scope="row"><a href="${monitorPagePath(monitor.id)}">${monitor.name ?? monitor.id}</a></th>
<td><code>${monitor.query}</code></td><td class="url">${deliveryText(monitor)}</td><td>${statusText(monitor)}${notice ? html`<br><span class="muted">${notice.message}</span>` : ""}</td>
<td>${failureText(monitor) || "—"}</td><td class="number">${monitor.lastSeq}</td><td class="number">${monitor.chargedSeq}</td>
<td>${spentText(monitor, view.now)}</td></tr>`;
  });
  const table =
    rows.length === 0
      ? html`<p id="no-monitors">You have no monitors. Create one with <code>POST /v1/monitors</code> (see <a href="/docs#monitors">the docs</a>).</p>`
      : scrollable(
          "Your monitors",
          html`<table id="monitors"><thead><tr><th scope="col">Name</th><th scope="col">Query</th><th scope="col">Delivery</th><th scope="col">Status</th><th scope="col">Failing webhook</th><th scope="col" class="number">Matches</th><th scope="col" class="number">Charged through</th><th scope="col">Spent today (UTC)</th></tr></thead>
<tbody>${rows}</tbody></table>`,
        );
  return layout(
    { title: "Monitors", section: "monitors", viewer: view.viewer, wide: true },
    html`<p>Your saved searches, matched against each post as it arrives and delivered to you at 1 credit per
post. Matches are numbered per monitor; those up to “charged through” are paid for.</p>
${table}`,
  );
}

export interface MonitorView {
  viewer: Viewer;
  monitor: Monitor;
  now: number;
  /** What the last form did. */
  notice?: string;
}

function pauseForm(viewer: Viewer, monitor: Monitor): Html {
  const action = monitor.status === "active" ? "pause" : "resume";
  const label = monitor.status === "active" ? "Pause this monitor" : "Resume this monitor";
  const hint =
    monitor.status === "active"
      ? "A paused monitor matches nothing and delivers nothing until you resume it."
      : "Resuming matches posts that arrive from now on and delivers what is waiting; a failing webhook starts its retries afresh.";
  return html`<form method="post" action="${monitorPagePath(monitor.id)}/${action}">${csrfField(viewer)}
<p class="muted" id="pause-hint">${hint}</p>
<button type="submit" aria-describedby="pause-hint">${label}</button></form>`;
}

export function monitorPage(view: MonitorView): Html {
  const { monitor } = view;
  const notice = noticeOf(monitor);
  const done = view.notice ? html`<p class="notice" role="status" id="notice">${view.notice}</p>` : "";
  return layout(
    { title: `Monitor ${monitor.name ?? monitor.id}`, section: "monitors", viewer: view.viewer },
    html`${done}<dl class="detail" id="monitor-facts">
<dt>Id</dt><dd><code>${monitor.id}</code></dd>
<dt>Query</dt><dd><code>${monitor.query}</code></dd>
<dt>Delivery</dt><dd class="url">${deliveryText(monitor)}</dd>
<dt>Status</dt><dd id="monitor-status">${statusText(monitor)}</dd>
${notice ? html`<dt>Why</dt><dd id="monitor-notice">${notice.message} (since ${toMinute(notice.since)})</dd>` : ""}
${monitor.failure ? html`<dt>Webhook</dt><dd id="monitor-failure">${failureText(monitor)}</dd>` : ""}
<dt>Matches</dt><dd>${monitor.lastSeq}</dd>
<dt>Charged through</dt><dd>${monitor.chargedSeq}</dd>
<dt>Spent today</dt><dd>${spentText(monitor, view.now)}</dd>
<dt>Created</dt><dd>${toMinute(monitor.createdAt)}</dd></dl>
${pauseForm(view.viewer, monitor)}
<p><a href="/dashboard/monitors">All monitors</a></p>`,
  );
}
