// The account's monitors: a list with where each stands (delivering, held and why, paused and why, a
// failing webhook's attempts) and the form that creates one, a page per monitor with its figures and
// the forms that pause or resume it and change it, and the question before one is deleted. The API
// makes and changes them by the same rules (monitor-form.ts).
import { type KeyInfo, type Monitor, type MonitorNotice, spentToday } from "@social/core";
import { plural, scrollable, toMinute } from "./format.ts";
import { csrfField, type Html, html, layout, type Viewer } from "./html.ts";
import { type MonitorForm, type MonitorRefusal, monitorFields, monitorFormOf, newMonitorForm } from "./monitor-form.ts";

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

/** A form refused, shown again with what was typed. */
export interface RefusedForm {
  refusal: MonitorRefusal;
  form: MonitorForm;
}

function noticeLine(notice: string | undefined): Html | "" {
  return notice ? html`<p class="notice" role="status" id="notice">${notice}</p>` : "";
}

/** The create form, or how to get a key first: a monitor's deliveries are some key's charges. */
function createSection(viewer: Viewer, keys: readonly KeyInfo[], refused: RefusedForm | undefined): Html {
  const form =
    keys.length === 0
      ? html`<p id="monitor-needs-key">A monitor's deliveries are charged to one of your API keys, and you have no
active key: <a href="/dashboard">create a key</a> first.</p>`
      : monitorFields({
          viewer,
          action: "/dashboard/monitors",
          form: refused?.form ?? newMonitorForm(keys),
          ...(refused ? { refusal: refused.refusal } : {}),
          submit: "Create the monitor",
          keys,
        });
  return html`<h2 id="create-monitor">Create a monitor</h2>
${form}`;
}

export interface MonitorsView {
  viewer: Viewer;
  monitors: readonly Monitor[];
  now: number;
  /** The keys a new monitor can be charged to. */
  keys: readonly KeyInfo[];
  /** What the last form did. */
  notice?: string;
  refused?: RefusedForm;
}

export function monitorsPage(view: MonitorsView): Html {
  const rows = view.monitors.map((monitor) => {
    const notice = noticeOf(monitor);
    return html`<tr><th scope="row"><a href="${monitorPagePath(monitor.id)}">${monitor.name ?? monitor.id}</a></th>
<td><code>${monitor.query}</code></td><td class="url">${deliveryText(monitor)}</td><td>${statusText(monitor)}${notice ? html`<br><span class="muted">${notice.message}</span>` : ""}</td>
<td>${failureText(monitor) || "—"}</td><td class="number">${monitor.lastSeq}</td><td class="number">${monitor.chargedSeq}</td>
<td>${spentText(monitor, view.now)}</td></tr>`;
  });
  const table =
    rows.length === 0
      ? html`<p id="no-monitors">You have no monitors. Create one below, or with <code>POST /v1/monitors</code> (see <a href="/docs#monitors">the docs</a>).</p>`
      : scrollable(
          "Your monitors",
          html`<table id="monitors"><thead><tr><th scope="col">Name</th><th scope="col">Query</th><th scope="col">Delivery</th><th scope="col">Status</th><th scope="col">Failing webhook</th><th scope="col" class="number">Matches</th><th scope="col" class="number">Charged through</th><th scope="col">Spent today (UTC)</th></tr></thead>
<tbody>${rows}</tbody></table>`,
        );
  return layout(
    { title: "Monitors", section: "monitors", viewer: view.viewer, wide: true },
    html`${noticeLine(view.notice)}<p>Your saved searches, matched against each post as it arrives and delivered to you at 1 credit per
post. Matches are numbered per monitor; those up to “charged through” are paid for.</p>
${table}
${createSection(view.viewer, view.keys, view.refused)}`,
  );
}

export interface MonitorView {
  viewer: Viewer;
  monitor: Monitor;
  now: number;
  /** What the last form did. */
  notice?: string;
  /** The signing secret of a webhook monitor just made so, shown this once. */
  newSecret?: string;
  /** The change refused, with what was typed. */
  refused?: RefusedForm;
}

/** A new signing secret, shown once like a new key: focus comes here, and copy.ts adds its button. */
function newSecretNotice(secret: string): Html {
  return html`<div class="notice" role="status" id="new-secret-notice" tabindex="-1" autofocus>
<h2>Its webhook signing secret</h2>
<p>Copy it now: the dashboard shows it only this once (<code>GET /v1/monitors/{id}</code> returns it to your keys).
Your receiver checks each delivery's <code>Social-Signature</code> with it.</p>
<code class="key" id="new-secret">${secret}</code>
<p><button type="button" data-copy="new-secret" hidden>Copy the secret</button></p></div>`;
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
  const path = monitorPagePath(monitor.id);
  return layout(
    {
      title: `Monitor ${monitor.name ?? monitor.id}`,
      section: "monitors",
      viewer: view.viewer,
      copying: view.newSecret !== undefined,
    },
    html`${view.newSecret ? newSecretNotice(view.newSecret) : ""}${noticeLine(view.notice)}<dl class="detail" id="monitor-facts">
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
<h2 id="change-monitor">Change this monitor</h2>
${monitorFields({
  viewer: view.viewer,
  action: path,
  form: view.refused?.form ?? monitorFormOf(monitor),
  ...(view.refused ? { refusal: view.refused.refusal } : {}),
  submit: "Save the monitor",
})}
<p><a class="button secondary" href="${path}/delete">Delete this monitor…</a></p>
<p><a href="/dashboard/monitors">All monitors</a></p>`,
  );
}

/** The question before a monitor is deleted, since its matches go with it. */
export function deleteMonitorPage(viewer: Viewer, monitor: Monitor): Html {
  const name = monitor.name ?? monitor.id;
  return layout(
    { title: "Delete a monitor", section: "monitors", viewer },
    html`<p>Delete the monitor <strong>${name}</strong> (<code>${monitor.query}</code>)? It stops matching at once and
its matches so far (${monitor.lastSeq.toLocaleString("en-US")}) are deleted with it, read or not; it cannot be
brought back: you would create a new one instead.</p>
<form method="post" action="${monitorPagePath(monitor.id)}/delete" class="actions">${csrfField(viewer)}
<button type="submit">Delete ${name}</button> <a class="button secondary" href="${monitorPagePath(monitor.id)}">Keep it</a></form>`,
  );
}
