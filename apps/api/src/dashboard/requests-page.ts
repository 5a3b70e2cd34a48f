// The request log: every request made with the account's keys within the retention, answered or
// refused, newest first, to the second; filtered by key, status and endpoint, found by request id, and
// paged. The filters are a GET form, so a filtered view is a link to keep or share.
import {
  BALANCE_REFUSAL,
  CLIENT_CLOSED_STATUS,
  endpointName,
  KEY_LIMIT_REFUSAL,
  type KeyInfo,
  keyPagePath,
  type LoggedRefusal,
  type LoggedRequest,
  type LogPosition,
  MONITOR_CHARGE_ID_PATTERN,
  namedEndpoints,
  type RequestLogPage,
  type RequestLogQuery,
} from "@social/core";
import { scrollable, toSecond } from "./format.ts";
import { type Html, html, layout, type Viewer } from "./html.ts";

export const LOG_PAGE_SIZE = 50;

/** The statuses a customer can meet, each with what it means (a refusal's own code says more). */
const STATUSES: readonly [number, string][] = [
  [200, "answered"],
  [400, "invalid request"],
  [401, "key refused"],
  [402, "not enough credits"],
  [404, "not found"],
  [409, "still in progress"],
  [429, "rate limited"],
  [CLIENT_CLOSED_STATUS, "not delivered, not charged"],
  [500, "internal error"],
  [503, "unavailable"],
];
/** The two 402s apart: chosen by the code the log names each by. */
const REFUSAL_CHOICES: readonly [LoggedRefusal, string][] = [
  [BALANCE_REFUSAL, "402 for lack of credits (balance)"],
  [KEY_LIMIT_REFUSAL, "402 for a key's own limit"],
];
const STATUS_CHOICES: readonly [string, string][] = [
  ["all", "Every status"],
  ["ok", "Answered (2xx)"],
  ["error", "Refused or failed (4xx, 5xx)"],
  ...STATUSES.map(([status, meaning]): [string, string] => [String(status), `${status} ${meaning}`]),
  ...REFUSAL_CHOICES.map(([refusal, label]): [string, string] => [refusal.errorCode, label]),
];

/** What a page of the log asks for: the store's query but for the retention's start and the page size. */
export type LogFilters = Omit<RequestLogQuery, "since" | "limit">;

const REQUEST_ID = /^req_[0-9a-f]{1,64}$/;
const POSITION = /^(\d{1,16})-(.+)$/;

/** An entry's id: a request's (its x-request-id), or a monitor charge's, which is no request's answer. */
function isEntryId(text: string): boolean {
  return REQUEST_ID.test(text) || MONITOR_CHARGE_ID_PATTERN.test(text);
}

/**
 * The filters a page's query names, or what is wrong with them. Only the account's own keys, the
 * statuses and endpoints listed, and well-formed request ids and positions pass.
 */
export function logFilters(query: URLSearchParams, keys: readonly KeyInfo[]): LogFilters | { error: string } {
  const filters: LogFilters = { status: "all" };
  const key = query.get("key") || undefined;
  if (key !== undefined) {
    if (!keys.some((known) => known.id === key)) return { error: "That key is not one of yours." };
    filters.keyId = key;
  }
  const endpoint = query.get("endpoint") || undefined;
  if (endpoint !== undefined) {
    if (!namedEndpoints.some(([id]) => id === endpoint)) return { error: "There is no such endpoint." };
    filters.endpoint = endpoint;
  }
  const status = query.get("status") || "all";
  if (!STATUS_CHOICES.some(([value]) => value === status)) return { error: "There is no such status." };
  const refusal = REFUSAL_CHOICES.find(([kind]) => kind.errorCode === status)?.[0];
  if (refusal) {
    filters.status = refusal.status;
    filters.errorCode = refusal.errorCode;
  } else {
    filters.status = status === "all" || status === "ok" || status === "error" ? status : Number(status);
  }
  const requestId = query.get("id")?.trim() || undefined;
  if (requestId !== undefined) {
    if (!isEntryId(requestId)) {
      return {
        error:
          "A request id is req_ followed by letters a to f and digits, as in the x-request-id header, or a monitor charge's mon_… id.",
      };
    }
    filters.requestId = requestId;
  }
  for (const side of ["before", "after"] as const) {
    const position = query.get(side) || undefined;
    if (position === undefined) continue;
    const match = POSITION.exec(position);
    if (!match || !isEntryId(match[2] as string) || filters.before) {
      return { error: "That page of the log does not exist." };
    }
    filters[side] = { createdAt: Number(match[1]), requestId: match[2] as string };
  }
  return filters;
}

/** The query the filters ask of the log, within the retention. */
export function logQuery(filters: LogFilters, since: number): RequestLogQuery {
  return { since, limit: LOG_PAGE_SIZE, ...filters };
}

function option(value: string, label: string, selected: string | undefined): Html {
  return html`<option value="${value}"${value === selected ? html` selected` : ""}>${label}</option>`;
}

function filterForm(filters: LogFilters, keys: readonly KeyInfo[]): Html {
  const status = filters.errorCode ?? String(filters.status);
  return html`<form method="get" action="/dashboard/requests" class="filters" role="search" aria-label="Filter the requests">
<div class="field"><label for="log-id">Request id</label>
<input type="text" id="log-id" name="id" value="${filters.requestId ?? ""}" placeholder="req_…" autocomplete="off" spellcheck="false"></div>
<div class="field"><label for="log-key">Key</label><select id="log-key" name="key">${option("", "Every key", filters.keyId ?? "")}${keys.map((key) => option(key.id, `${key.name} (${key.prefix}…)`, filters.keyId))}</select></div>
<div class="field"><label for="log-status">Status</label><select id="log-status" name="status">${STATUS_CHOICES.map(([value, label]) => option(value, label, status))}</select></div>
<div class="field"><label for="log-endpoint">Endpoint</label><select id="log-endpoint" name="endpoint">${option("", "Every endpoint", filters.endpoint ?? "")}${namedEndpoints.map(([id, name]) => option(id, name, filters.endpoint))}</select></div>
<button type="submit">Show</button> <a href="/dashboard/requests">Clear</a></form>`;
}

/** Both 402s answer insufficient_credits; the log names a key's limit apart, and so does the page. */
const REFUSAL_MEANINGS: Readonly<Record<string, string>> = {
  [BALANCE_REFUSAL.errorCode]: "insufficient_credits: balance",
  [KEY_LIMIT_REFUSAL.errorCode]: "insufficient_credits: key limit",
};

function statusCell(entry: LoggedRequest): Html {
  return html`<td class="number status-${entry.status < 400 ? "ok" : "error"}">${entry.status}</td><td>${meaningOf(entry)}</td>`;
}

/** A link to the page beside this one: the same filters, above (`after`) or below (`before`) a position. */
function pageHref(filters: LogFilters, side: "before" | "after", position: LogPosition): string {
  const query = new URLSearchParams();
  if (filters.requestId) query.set("id", filters.requestId);
  if (filters.keyId) query.set("key", filters.keyId);
  if (filters.status !== "all") query.set("status", filters.errorCode ?? String(filters.status));
  if (filters.endpoint) query.set("endpoint", filters.endpoint);
  query.set(side, `${position.createdAt}-${position.requestId}`);
  return `/dashboard/requests?${query.toString()}`;
}

/** Newer and Older, each where there is such a page. */
function pageLinks(filters: LogFilters, page: RequestLogPage): Html | "" {
  const newer = page.newer && html`<a href="${pageHref(filters, "after", page.newer)}" rel="prev">Newer requests</a>`;
  const older = page.next && html`<a href="${pageHref(filters, "before", page.next)}" rel="next">Older requests</a>`;
  if (!newer && !older) return "";
  return html`<nav aria-label="Pages of the log" id="log-pages"><p>${newer}${newer && older ? " · " : ""}${older}</p></nav>`;
}

/** The path the client called (a /2 call as /2), or the endpoint's name for entries kept without it. */
export function calledPath(entry: LoggedRequest): string {
  return entry.call?.split("?")[0] ?? endpointName(entry.endpoint);
}

/** A request's own page: the one row of the log, in full. */
export function requestHref(requestId: string): string {
  return `/dashboard/requests/${encodeURIComponent(requestId)}`;
}

/** What a status or a refusal's code means, as the log's rows say it. */
function meaningOf(entry: LoggedRequest): string {
  const code = entry.errorCode;
  return (code && (REFUSAL_MEANINGS[code] ?? code)) ?? STATUSES.find(([status]) => status === entry.status)?.[1] ?? "";
}

export interface RequestsView {
  viewer: Viewer;
  keys: readonly KeyInfo[];
  filters: LogFilters;
  page: RequestLogPage;
  /** How many days the log covers (REQUEST_LOG_DAYS). */
  days: number;
}

export function requestsPage(view: RequestsView): Html {
  const { filters, page } = view;
  const keys = new Map(view.keys.map((key) => [key.id, key]));
  const rows = page.entries.map((entry) => {
    const key = keys.get(entry.keyId);
    return html`<tr><td>${toSecond(entry.createdAt)}</td>${statusCell(entry)}<td><code>${calledPath(entry)}</code></td>
<td>${key ? key.name : entry.keyId}</td><td class="number">${entry.credits}</td>
<td class="number">${entry.durationMs === null ? "—" : `${entry.durationMs} ms`}</td><td><a href="${requestHref(entry.requestId)}"><code>${entry.requestId}</code></a></td></tr>`;
  });
  const filtered = filters.requestId || filters.keyId || filters.endpoint || filters.status !== "all";
  const table =
    rows.length === 0
      ? html`<p id="no-requests">${filtered ? "No request matches these filters." : `No requests in the last ${view.days} days.`}</p>`
      : scrollable(
          "Requests",
          html`<table id="request-log"><thead><tr><th scope="col">Time (UTC)</th><th scope="col" class="number">Status</th><th scope="col">Meaning</th><th scope="col">Path called</th><th scope="col">Key</th><th scope="col" class="number">Credits</th><th scope="col" class="number">Duration</th><th scope="col">Request id</th></tr></thead>
<tbody>${rows}</tbody></table>`,
        );
  return layout(
    { title: "Requests", section: "requests", viewer: view.viewer, wide: true },
    html`<p>Every request made with your keys in the last ${view.days} days, newest first: answered ones with what they
were charged, and refused ones (never charged) with their error code. Find one by the <code>x-request-id</code> of its answer.</p>
${filterForm(filters, view.keys)}
${table}
${pageLinks(filters, page)}`,
  );
}

/** The parameters of a call, by name, as the client sent them. */
function parametersOf(call: string | null): [string, string][] {
  const query = call?.split("?").slice(1).join("?") ?? "";
  return [...new URLSearchParams(query)];
}

/** One request in full: what was called with which parameters, how it was answered, what it cost and why. */
export function requestDetailPage(viewer: Viewer, entry: LoggedRequest, key: KeyInfo | undefined): Html {
  const parameters = parametersOf(entry.call);
  const reason =
    entry.errorCode === KEY_LIMIT_REFUSAL.errorCode
      ? html`<dt>Why 402</dt><dd id="refusal-reason">the key's own limit (<code>key_limit</code>): <a href="${keyPagePath(entry.keyId)}">raise it on the key's page</a></dd>`
      : entry.errorCode === BALANCE_REFUSAL.errorCode
        ? html`<dt>Why 402</dt><dd id="refusal-reason">the balance (<code>balance</code>): <a href="/billing">add credits</a></dd>`
        : "";
  return layout(
    { title: `Request ${entry.requestId}`, section: "requests", viewer },
    html`<dl class="detail" id="request-detail">
<dt>Request id</dt><dd><code>${entry.requestId}</code></dd>
<dt>Time</dt><dd>${toSecond(entry.createdAt)}</dd>
<dt>Path called</dt><dd><code id="called-path">${calledPath(entry)}</code></dd>
<dt>Status</dt><dd>${entry.status} ${meaningOf(entry)}</dd>${reason}
${entry.message === null ? "" : html`<dt>Message</dt><dd id="error-message">${entry.message}</dd>`}
<dt>Credits</dt><dd>${entry.credits}</dd>
<dt>Duration</dt><dd>${entry.durationMs === null ? "—" : `${entry.durationMs} ms`}</dd>
<dt>Key</dt><dd>${key ? html`<a href="${keyPagePath(key.id)}">${key.name}</a> (<code>${key.prefix}…</code>)` : entry.keyId}</dd></dl>
<h2>Parameters</h2>
${
  parameters.length === 0
    ? html`<p>${entry.call === null ? "Not kept for this request." : "None."}</p>`
    : html`<table id="request-parameters"><thead><tr><th scope="col">Name</th><th scope="col">Value</th></tr></thead>
<tbody>${parameters.map(([name, value]) => html`<tr><td><code>${name}</code></td><td><code>${value}</code></td></tr>`)}</tbody></table>`
}
<p class="muted">Your key is sent in a header and never kept here.</p>
<p><a href="/dashboard/requests">Back to every request</a></p>`,
  );
}

/** When the log is off (REQUEST_LOG_DAYS=0), the page says so rather than showing an empty list. */
export function requestsOffPage(viewer: Viewer): Html {
  return layout(
    { title: "Requests", section: "requests", viewer },
    html`<p>This server keeps no request log. Your charges are on the <a href="/dashboard/usage">usage page</a>.</p>`,
  );
}
