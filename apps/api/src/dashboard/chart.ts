// A per-day bar chart as inline SVG: no script, no image request, and each bar names its day and value
// for screen readers and on hover. The table under it carries the same numbers.
import type { DailyUsage } from "@social/core";
import { type Html, html } from "./html.ts";

const WIDTH = 600;
const HEIGHT = 160;
/** Room under the bars for the first and last day. */
const AXIS = 26;

export function dailyChart(
  id: string,
  label: string,
  days: readonly DailyUsage[],
  value: (day: DailyUsage) => number,
): Html {
  const peak = Math.max(1, ...days.map(value));
  const slot = WIDTH / Math.max(1, days.length);
  const bars = days.map((day, index) => {
    const amount = value(day);
    const height = Math.round(((HEIGHT - AXIS) * amount) / peak);
    return html`<rect x="${(index * slot + 1).toFixed(1)}" y="${HEIGHT - AXIS - height}" width="${(slot - 2).toFixed(1)}" height="${height}"><title>${day.day}: ${amount}</title></rect>`;
  });
  const first = days[0]?.day ?? "";
  const last = days.at(-1)?.day ?? "";
  return html`<svg class="chart" id="${id}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${id}-title">
<title id="${id}-title">${label}, ${first} to ${last}, highest ${peak}</title>${bars}
<line x1="0" y1="${HEIGHT - AXIS}" x2="${WIDTH}" y2="${HEIGHT - AXIS}"></line>
<text x="0" y="${HEIGHT - 3}">${first}</text><text x="${WIDTH}" y="${HEIGHT - 3}" text-anchor="end">${last}</text></svg>`;
}
