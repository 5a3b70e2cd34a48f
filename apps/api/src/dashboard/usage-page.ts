// Usage: requests and credits per day (the charts), then per endpoint and per key, over the last 30
// days. Charged requests only: the request log lists the rest.
import type { DailyUsage, KeyInfo, UsageGroup } from "@social/core";
import { dailyChart } from "./chart.ts";
import { endpointPath, plural, scrollable } from "./format.ts";
import { type Html, html, layout, type Viewer } from "./html.ts";

export const USAGE_DAYS = 30;

export interface UsageView {
  viewer: Viewer;
  days: readonly DailyUsage[];
  byEndpoint: readonly UsageGroup[];
  byKey: readonly UsageGroup[];
  keys: readonly KeyInfo[];
}

function groupTable(
  id: string,
  label: string,
  heading: string,
  rows: readonly [name: Html, group: UsageGroup][],
): Html {
  if (rows.length === 0) return html`<p>No charged requests in the last ${USAGE_DAYS} days.</p>`;
  const body = rows.map(
    ([name, group]) =>
      html`<tr><th scope="row">${name}</th><td class="number">${group.requests}</td><td class="number">${group.credits}</td></tr>`,
  );
  return scrollable(
    label,
    html`<table id="${id}"><thead><tr><th scope="col">${heading}</th><th scope="col" class="number">Requests</th><th scope="col" class="number">Credits</th></tr></thead>
<tbody>${body}</tbody></table>`,
  );
}

/** The charts' numbers as a table, for screen readers and for copying. */
function dayTable(days: readonly DailyUsage[]): Html {
  const rows = days
    .filter((day) => day.requests > 0)
    .map(
      (day) =>
        html`<tr><th scope="row">${day.day}</th><td class="number">${day.requests}</td><td class="number">${day.credits}</td></tr>`,
    );
  if (rows.length === 0) return html`<p>No charged requests in the last ${USAGE_DAYS} days.</p>`;
  return scrollable(
    "Requests and credits per day",
    html`<table><thead><tr><th scope="col">Day (UTC)</th><th scope="col" class="number">Requests</th><th scope="col" class="number">Credits</th></tr></thead>
<tbody>${rows}</tbody></table>`,
  );
}

export function usagePage(view: UsageView): Html {
  const { days } = view;
  const totalRequests = days.reduce((sum, day) => sum + day.requests, 0);
  const totalCredits = days.reduce((sum, day) => sum + day.credits, 0);
  const keyNames = new Map(view.keys.map((key) => [key.id, key]));
  const endpoints = view.byEndpoint.map((group): [Html, UsageGroup] => [
    html`<code>${endpointPath(group.group)}</code>`,
    group,
  ]);
  const keys = view.byKey.map((group): [Html, UsageGroup] => {
    const key = keyNames.get(group.group);
    return [key ? html`${key.name} <code>${key.prefix}…</code>` : html`<code>${group.group}</code>`, group];
  });
  return layout(
    { title: "Usage", section: "usage", viewer: view.viewer },
    html`<p id="usage-summary">Last ${USAGE_DAYS} days: ${plural(totalRequests, "request")}, ${plural(totalCredits, "credit")}.</p>
<p class="muted">Only answered requests are charged, so only they are counted here; <a href="/dashboard/requests">the request log</a> lists every request, refused ones too.</p>
<h2>Requests per day</h2>${dailyChart("requests-chart", "Requests per day", days, (day) => day.requests)}
<h2>Credits per day</h2>${dailyChart("credits-chart", "Credits per day", days, (day) => day.credits)}
<h3>Days with requests</h3>
${dayTable(days)}
<h2>By endpoint</h2>
${groupTable("usage-by-endpoint", "Requests and credits per endpoint", "Endpoint", endpoints)}
<h2>By key</h2>
${groupTable("usage-by-key", "Requests and credits per key", "Key", keys)}`,
  );
}
