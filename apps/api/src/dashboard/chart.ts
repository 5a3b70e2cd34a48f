// A per-day bar chart as inline SVG: no script, no image request. The axis says the highest value and
// zero, each bar carries its value above it while the bars are wide enough to read one, and each bar
// names its day and value for screen readers and on hover. The table under it carries the same numbers.
import type { DailyUsage } from "@social/core";
import { type Html, html } from "./html.ts";

const WIDTH = 600;
const HEIGHT = 180;
/** Room under the bars for the first and last day. */
const AXIS = 26;
/** Room above the bars for their values. */
const TOP = 20;
/** Room left of the bars for the scale. */
const SCALE = 56;
/** Past this many days a bar is too thin to carry its value: the scale and the table say it. */
const LABELLED_DAYS = 31;

export function dailyChart(
  id: string,
  label: string,
  days: readonly DailyUsage[],
  value: (day: DailyUsage) => number,
): Html {
  const peak = Math.max(1, ...days.map(value));
  const plot = HEIGHT - AXIS - TOP;
  const slot = (WIDTH - SCALE) / Math.max(1, days.length);
  const labelled = days.length <= LABELLED_DAYS;
  const bars = days.map((day, index) => {
    const amount = value(day);
    const height = Math.round((plot * amount) / peak);
    const x = SCALE + index * slot;
    const y = HEIGHT - AXIS - height;
    const shown =
      labelled && amount > 0
        ? html`<text class="value" x="${(x + slot / 2).toFixed(1)}" y="${y - 4}" text-anchor="middle" aria-hidden="true">${amount.toLocaleString("en-US")}</text>`
        : "";
    return html`<rect x="${(x + 1).toFixed(1)}" y="${y}" width="${(slot - 2).toFixed(1)}" height="${height}"><title>${day.day}: ${amount}</title></rect>${shown}`;
  });
  const first = days[0]?.day ?? "";
  const last = days.at(-1)?.day ?? "";
  return html`<svg class="chart" id="${id}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${id}-title">
<title id="${id}-title">${label}, ${first} to ${last}, highest ${peak}</title>
<text class="scale" x="${SCALE - 6}" y="${TOP + 6}" text-anchor="end" aria-hidden="true">${peak.toLocaleString("en-US")}</text>
<text class="scale" x="${SCALE - 6}" y="${HEIGHT - AXIS}" text-anchor="end" aria-hidden="true">0</text>
<line x1="${SCALE}" y1="${TOP}" x2="${WIDTH}" y2="${TOP}" class="peak"></line>${bars}
<line x1="${SCALE}" y1="${HEIGHT - AXIS}" x2="${WIDTH}" y2="${HEIGHT - AXIS}"></line>
<text x="${SCALE}" y="${HEIGHT - 3}">${first}</text><text x="${WIDTH}" y="${HEIGHT - 3}" text-anchor="end">${last}</text></svg>`;
}
