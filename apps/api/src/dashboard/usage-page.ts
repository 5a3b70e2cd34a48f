// Usage: requests and credits per day (the charts), then per endpoint and per key, over a range of UTC
// days the customer picks (the last 30 by default), each downloadable as the CSV /v1/usage sends.
// Charged requests only: the request log lists the rest.
import type { DailyUsage, KeyInfo, UsageGrouping, UsageReport } from "@social/core";
import { dailyChart } from "./chart.ts";
import { plural, scrollable } from "./format.ts";
import { type Html, html, layout, type Viewer } from "./html.ts";

/** Days the billing page's charges cover. */
export const USAGE_DAYS = 30;

const DAY_MS = 86_400_000;

export interface UsageView {
  viewer: Viewer;
  /** The same range grouped three ways. */
  byDay: UsageReport;
  byEndpoint: UsageReport;
  byKey: UsageReport;
  keys: readonly KeyInfo[];
}

/** Every day of the range, oldest first, days without usage as zeros: what the charts draw. */
export function everyDay(report: UsageReport): DailyUsage[] {
  const counted = new Map(report.groups.map((row) => [row.day, row]));
  const days: DailyUsage[] = [];
  for (let ms = Date.parse(`${report.from}T00:00:00Z`); ms <= Date.parse(`${report.to}T00:00:00Z`); ms += DAY_MS) {
    const day = new Date(ms).toISOString().slice(0, 10);
    const row = counted.get(day);
    days.push({ day, requests: row?.requests ?? 0, credits: row?.credits ?? 0 });
  }
  return days;
}

/** The CSV of the range grouped by `groupBy`. */
export function usageCsvHref(report: Pick<UsageReport, "from" | "to">, groupBy: UsageGrouping): string {
  return `/dashboard/usage.csv?${new URLSearchParams({ from: report.from, to: report.to, group_by: groupBy })}`;
}

function groupTable(id: string, label: string, heading: string, rows: readonly [name: Html, row: Counts][]): Html {
  if (rows.length === 0) return html`<p>No charged requests in these days.</p>`;
  const body = rows.map(
    ([name, row]) =>
      html`<tr><th scope="row">${name}</th><td class="number">${row.requests}</td><td class="number">${row.credits}</td></tr>`,
  );
  return scrollable(
    label,
    html`<table id="${id}"><thead><tr><th scope="col">${heading}</th><th scope="col" class="number">Requests</th><th scope="col" class="number">Credits</th></tr></thead>
<tbody>${body}</tbody></table>`,
  );
}

interface Counts {
  requests: number;
  credits: number;
}

function rangeForm(report: UsageReport): Html {
  return html`<form method="get" action="/dashboard/usage" class="filters" aria-label="Days shown">
<div class="field"><label for="usage-from">From (UTC day)</label><input type="date" id="usage-from" name="from" value="${report.from}" required></div>
<div class="field"><label for="usage-to">To (UTC day)</label><input type="date" id="usage-to" name="to" value="${report.to}" required></div>
<button type="submit">Show</button> <a href="/dashboard/usage">Last 30 days</a></form>`;
}

function download(report: UsageReport, groupBy: UsageGrouping, text: string): Html {
  return html`<a href="${usageCsvHref(report, groupBy)}" download>${text}</a>`;
}

export function usagePage(view: UsageView): Html {
  const { byDay } = view;
  const days = everyDay(byDay);
  const keyNames = new Map(view.keys.map((key) => [key.id, key]));
  const endpoints = view.byEndpoint.groups.map((row): [Html, Counts] => [html`<code>${row.endpoint}</code>`, row]);
  const keys = view.byKey.groups.map((row): [Html, Counts] => {
    const key = keyNames.get(row.key_id ?? "");
    return [key ? html`${key.name} <code>${key.prefix}…</code>` : html`<code>${row.key_id}</code>`, row];
  });
  const dayRows = byDay.groups.map((row): [Html, Counts] => [html`${row.day}`, row]);
  return layout(
    { title: "Usage", section: "usage", viewer: view.viewer },
    html`${rangeForm(byDay)}
<p id="usage-summary">${byDay.from} to ${byDay.to} (UTC): ${plural(byDay.total.requests, "request")}, ${plural(byDay.total.credits, "credit")}.</p>
<p id="usage-csv">Download as CSV: ${download(byDay, "day", "per day")} · ${download(byDay, "endpoint", "per endpoint")} · ${download(byDay, "key", "per key")}</p>
<p class="muted">Only answered requests are charged, so only they are counted here; <a href="/dashboard/requests">the request log</a> lists every request, refused ones too.</p>
<h2>Requests per day</h2>${dailyChart("requests-chart", "Requests per day", days, (day) => day.requests)}
<h2>Credits per day</h2>${dailyChart("credits-chart", "Credits per day", days, (day) => day.credits)}
<h3>Days with requests</h3>
${groupTable("usage-by-day", "Requests and credits per day", "Day (UTC)", dayRows)}
<h2>By endpoint</h2>
${groupTable("usage-by-endpoint", "Requests and credits per endpoint", "Endpoint", endpoints)}
<h2>By key</h2>
${groupTable("usage-by-key", "Requests and credits per key", "Key", keys)}`,
  );
}
